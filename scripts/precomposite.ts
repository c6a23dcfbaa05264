/**
 * Writes a NeRF-synthetic subset with its RGBA images already composited over the background,
 * as 8-bit RGB PNGs: exactly the pixels the trainer would compute itself (loadViewImage's
 * composite-then-round), in fewer bytes, so the mic protocol fits the GPU machine's transfer limit.
 *   node out/tmp/precomposite.mjs <src dataset> <dst dir> <background 0|1> [testEvery=4]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadDataset } from '../main/engine/dataset/dataset.js';
import { loadViewImage } from '../main/engine/dataset/view-image.js';
import { encodePngRgb } from '../main/engine/formats/images.js';

const [src, dst, bgArg, everyArg] = process.argv.slice(2);
const bg = Number(bgArg);
const every = Number(everyArg ?? 4);
const dataset = await loadDataset(src, { background: [bg, bg, bg] });
for (const split of ['train', 'test']) {
  const json = JSON.parse(readFileSync(path.join(src, `transforms_${split}.json`), 'utf8')) as { frames: { file_path: string }[] };
  if (split === 'test') json.frames = json.frames.filter((f) => Number(/r_(\d+)/.exec(f.file_path)?.[1]) % every === 0);
  mkdirSync(path.join(dst, split), { recursive: true });
  writeFileSync(path.join(dst, `transforms_${split}.json`), JSON.stringify(json));
  for (const frame of json.frames) {
    const name = `${frame.file_path.replace(/^\.\//, '')}.png`;
    const view = dataset.views.find((v) => v.name === name);
    if (!view) throw new Error(`no view ${name}`);
    const image = await loadViewImage(view, { background: [bg, bg, bg], cacheDir: null });
    writeFileSync(path.join(dst, name), await encodePngRgb(image.rgb, image.width, image.height, 3));
  }
}
console.log(`precomposite: ${dataset.views.length} views read, written to ${dst}`);
