/**
 * Decode + downscale time of real image sets on the CPU, cold (no image cache), the way the
 * trainer's data loading does it (loadViewImages: decode, EXIF orientation, composite over the
 * background, undistort, area-downscale, quantize). Numbers for docs/benchmarks.md "Image decode (CPU)".
 *   node scripts/build.mjs --node && npx esbuild bench/image-decode.ts --bundle --platform=node --format=esm \
 *     --external:sharp --external:webgpu --outfile=out/tmp/image-decode.mjs && node out/tmp/image-decode.mjs [repeats=3]
 * Sets: ../shared/data/colmap_statue (23 JPEG 1000x~658) and nerf_synthetic_mic train (100 RGBA PNG 800x800).
 */
import path from 'node:path';
import { loadDataset } from '../main/engine/capture/dataset.js';
import { loadViewImages } from '../main/engine/capture/view-image.js';

const repeats = Number(process.argv[2] ?? 3);
const shared = path.resolve(process.cwd(), '../shared/data');
const sets = [
  { name: 'statue (23 JPEG 1000x~658)', dir: path.join(shared, 'colmap_statue') },
  { name: 'mic train (100 RGBA PNG 800x800)', dir: path.join(shared, 'nerf_synthetic_mic'), trainOnly: true },
];

for (const set of sets) {
  for (const downscale of [1, 2, 4, 8]) {
    const dataset = await loadDataset(set.dir, { downscale, testEvery: 8 });
    const views = set.trainOnly ? dataset.views.filter((v) => v.split === 'train') : dataset.views;
    const times: number[] = [];
    for (let r = 0; r < repeats; r++) {
      const started = performance.now();
      await loadViewImages(dataset, { views, downscale, cacheDir: null });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const best = times[0];
    console.log(`${set.name}  1/${downscale}: best ${best.toFixed(0)} ms of ${repeats} (${(best / views.length).toFixed(1)} ms per image), all ${times.map((t) => t.toFixed(0)).join(' ')}`);
  }
}
