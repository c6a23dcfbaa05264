/**
 * Decode + downscale time of real image sets on the CPU, cold (no image cache), the way the
 * trainer's data loading does it (loadViewImages: decode, EXIF orientation, composite over the
 * background, undistort, area-downscale, quantize). Numbers for docs/benchmarks.md "Image decode (CPU)".
 * CPU time is reported beside wall time: on a shared machine it is the number that other load does not move.
 *   node scripts/build.mjs --node && npx esbuild bench/image-decode.ts --bundle --platform=node --format=esm \
 *     --external:sharp --external:webgpu --outfile=out/tmp/image-decode.mjs && node out/tmp/image-decode.mjs [repeats=3]
 * Sets: ../shared/data/colmap_statue (23 JPEG 1000x~658) and nerf_synthetic_mic train (100 RGBA PNG 800x800).
 */
import path from 'node:path';
import { loadDataset } from '../main/engine/dataset/dataset.js';
import { loadViewImages } from '../main/engine/dataset/view-image.js';

const repeats = Number(process.argv[2] ?? 3);
const shared = path.resolve(process.cwd(), '../shared/data');
const sets = [
  { name: 'statue (23 JPEG 1000x~658)', dir: path.join(shared, 'colmap_statue') },
  { name: 'mic train (100 RGBA PNG 800x800)', dir: path.join(shared, 'nerf_synthetic_mic'), trainOnly: true },
];

/** Wall and CPU time (this process, every thread: libuv's pool and workers count too) of `run`, best of `repeats` by CPU. */
async function timed(run: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  let best = { wallMs: Infinity, cpuMs: Infinity };
  for (let r = 0; r < repeats; r++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await run();
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    if (cpuMs < best.cpuMs) best = { wallMs, cpuMs };
  }
  return best;
}

const rows: string[] = [];
for (const set of sets) {
  for (const downscale of [1, 2, 4, 8]) {
    const dataset = await loadDataset(set.dir, { downscale, testEvery: 8 });
    const views = set.trainOnly ? dataset.views.filter((v) => v.split === 'train') : dataset.views;
    const t = await timed(() => loadViewImages(dataset, { views, downscale, cacheDir: null }));
    rows.push(`| ${set.name} | 1/${downscale} | ${t.wallMs.toFixed(0)} | ${t.cpuMs.toFixed(0)} | ${(t.cpuMs / views.length).toFixed(1)} |`);
    console.log(rows.at(-1));
  }
}
console.log(`\n| set | downscale | wall ms | CPU ms | CPU ms per image |\n|---|---|---|---|---|\n${rows.join('\n')}`);
