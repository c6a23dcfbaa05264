/**
 * Where SIFT extraction's host time goes, per image (docs/sfm.md, "Extraction throughput"): the
 * frames of a folder (default the apple clip's 25 at 640 px, first octave -1, 8192 features)
 * decoded and extracted one after the other, with every WebGPU call the extractor makes counted
 * and timed (buffer and bind-group creation, uniform and data writes, submits, read-backs and how
 * long each waited), and the extractor's own host sections (timings.host). Wall and CPU ms per
 * image are medians after the first image (which compiles the pipelines). `--all`: the same
 * frames through extractAll (decode of the next image overlapped with this one's GPU work).
 *   node --input-type=module -e "import {build} from 'esbuild'; import {wgslEsbuild} from './scripts/wgsl-plugin.mjs';
 *     await build({entryPoints:['bench/sfm-extract-host.ts'],bundle:true,platform:'node',format:'esm',
 *     external:['sharp','webgpu'],plugins:[wgslEsbuild],outfile:'out/tmp/sfm-extract-host.mjs'})" \
 *   && node out/tmp/sfm-extract-host.mjs [images-dir] [--json]
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { openGpu } from '../main/engine/gpu/context.js';
import { SiftExtractor } from '../main/engine/sfm/features.js';
import { loadGreyImage } from '../main/engine/sfm/grey-image.js';
import { CAPTURE_SIFT } from '../main/engine/sfm/sift-options.js';

const dir = path.resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? '/work/capdata/apple25/images');
const json = process.argv.includes('--json');
const files = readdirSync(dir).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort().map((f) => path.join(dir, f));

interface Call {
  count: number;
  ms: number;
}
const calls = new Map<string, Call>();
function count(name: string, ms: number) {
  const c = calls.get(name) ?? { count: 0, ms: 0 };
  c.count++;
  c.ms += ms;
  calls.set(name, c);
}
/** Wraps a method so every call is counted and timed (synchronous part; a promise's wait under `<name> wait`). */
function wrap<T extends object>(target: T, method: keyof T & string, name = method) {
  const original = (target as Record<string, unknown>)[method] as (...args: unknown[]) => unknown;
  (target as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    const value = original.apply(this, args);
    count(name, performance.now() - t);
    if (value instanceof Promise) {
      const started = performance.now();
      return value.then((v) => (count(`${name} wait`, performance.now() - started), v));
    }
    return value;
  };
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const ctx = await openGpu();
const { device } = ctx;
wrap(device, 'createBuffer');
wrap(device, 'createBindGroup');
wrap(device, 'createCommandEncoder');
wrap(device.queue, 'writeBuffer');
wrap(device.queue, 'submit');
wrap(device.queue, 'onSubmittedWorkDone');
wrap(GPUBuffer.prototype, 'mapAsync');
wrap(GPUBuffer.prototype, 'getMappedRange');

const options = { ...CAPTURE_SIFT, maxFeatures: 8192, firstOctave: -1 as const };
const extractor = await SiftExtractor.create(ctx, options);
const perImage: { decodeMs: number; decodeCpuMs: number; wallMs: number; cpuMs: number; features: number; host: Record<string, number>; calls: Record<string, Call> }[] = [];
for (const file of files) {
  const d0 = performance.now();
  const c0 = cpuNow();
  const image = await loadGreyImage(file);
  const d1 = performance.now();
  const c1 = cpuNow();
  calls.clear();
  const stages = await extractor.extractStages(image);
  perImage.push({
    decodeMs: d1 - d0, decodeCpuMs: c1 - c0, wallMs: performance.now() - d1, cpuMs: cpuNow() - c1,
    features: stages.features.keypoints.length / 4, host: stages.timings.host, calls: Object.fromEntries(calls),
  });
}
// GPU part: the pyramid alone (waited for), after the rest
const gpuPyramid: number[] = [];
for (const file of files.slice(1, 6)) gpuPyramid.push((await extractor.extractStages(await loadGreyImage(file), undefined, true)).timings.pyramidMs);
extractor.destroy();

const warm = perImage.slice(1);
const callNames = [...new Set(warm.flatMap((r) => Object.keys(r.calls)))].sort();
const hostNames = [...new Set(warm.flatMap((r) => Object.keys(r.host)))];
const result: Record<string, unknown> = {
  adapter: ctx.info.adapter.name,
  images: files.length,
  size: `${perImage.length ? (await loadGreyImage(files[0])).width : 0}`,
  firstImage: { wallMs: perImage[0].wallMs, cpuMs: perImage[0].cpuMs },
  perImageMedian: {
    decodeMs: median(warm.map((r) => r.decodeMs)), decodeCpuMs: median(warm.map((r) => r.decodeCpuMs)),
    extractWallMs: median(warm.map((r) => r.wallMs)), extractCpuMs: median(warm.map((r) => r.cpuMs)),
    pyramidGpuMs: median(gpuPyramid),
    features: median(warm.map((r) => r.features)),
  },
  hostSectionsMs: Object.fromEntries(hostNames.map((n) => [n, median(warm.map((r) => r.host[n] ?? 0))])),
  gpuCalls: Object.fromEntries(callNames.map((n) => [n, { count: median(warm.map((r) => r.calls[n]?.count ?? 0)), ms: median(warm.map((r) => r.calls[n]?.ms ?? 0)) }])),
};
if (process.argv.includes('--all')) {
  const t0 = performance.now();
  const c0 = cpuNow();
  const { extractAll } = await import('../main/engine/sfm/extract-all.js');
  const overlapped = await SiftExtractor.create(ctx, options);
  await extractAll(overlapped, files);
  overlapped.destroy();
  result.extractAll = { wallMsPerImage: (performance.now() - t0) / files.length, cpuMsPerImage: (cpuNow() - c0) / files.length };
}
ctx.destroy();
console.log(json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
