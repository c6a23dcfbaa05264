/**
 * SIFT extraction and matching on this machine's adapter, for docs/sfm.md: ms per statue image
 * (1000x~658, first octave 0 and -1), ms per image pair at 4096 features each, matches per pair.
 * Wall and CPU time (this process, every thread: llvmpipe's too) per item, median of the set after
 * one warm-up image (kernel compilation); the stage split (pyramid / detect / describe, wall ms)
 * from a second pass that waits after the pyramid. COLMAP 3.8's numbers beside them are timed by hand (docs/sfm.md).
 *   node --input-type=module -e "import {build} from 'esbuild'; import {wgslEsbuild} from './scripts/wgsl-plugin.mjs';
 *     await build({entryPoints:['bench/sfm-features.ts'],bundle:true,platform:'node',format:'esm',
 *     external:['sharp','webgpu'],plugins:[wgslEsbuild],outfile:'out/tmp/sfm-features.mjs'})" \
 *   && node out/tmp/sfm-features.mjs [images=5] [--json]
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { openGpu } from '../main/engine/gpu/context.js';
import { SiftExtractor, type ExtractionStages, type Features } from '../main/engine/sfm/features.js';
import { loadGreyImage } from '../main/engine/sfm/grey-image.js';
import { FeatureMatcher } from '../main/engine/sfm/match.js';
import { exhaustivePairs } from '../main/engine/sfm/match-pairs.js';

const count = Number(process.argv[2] ?? 5);
const json = process.argv.includes('--json');
const dir = path.resolve(process.cwd(), '../shared/data/colmap_statue/images');
const files = readdirSync(dir).filter((f) => /\.jpe?g$/i.test(f)).sort().slice(0, count);

interface Timed<T> {
  value: T;
  wallMs: number;
  cpuMs: number;
}

async function timed<T>(run: () => Promise<T>): Promise<Timed<T>> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await run();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const ctx = await openGpu();
const images = await Promise.all(files.map((f) => loadGreyImage(path.join(dir, f))));
const result: Record<string, unknown> = { adapter: ctx.info.adapter.name, backend: ctx.info.backend, images: files.length };
const featuresByOctave: Record<string, Features[]> = {};
for (const firstOctave of [0, -1] as const) {
  const extractor = await SiftExtractor.create(ctx, { firstOctave });
  await extractor.extract(images[0]); // warm-up: compiles the kernels
  const runs: Timed<ExtractionStages>[] = [];
  for (const image of images) runs.push(await timed(() => extractor.extractStages(image)));
  // the stage split needs a wait after the pyramid, which the timed runs above do not make
  const split: ExtractionStages[] = [];
  for (const image of images) split.push(await extractor.extractStages(image, undefined, true));
  extractor.destroy();
  featuresByOctave[firstOctave] = runs.map((r) => r.value.features);
  result[`extract_first_octave_${firstOctave}`] = {
    wallMsPerImage: median(runs.map((r) => r.wallMs)),
    cpuMsPerImage: median(runs.map((r) => r.cpuMs)),
    stagesMs: Object.fromEntries((['pyramidMs', 'detectMs', 'describeMs'] as const).map((k) => [k, median(split.map((r) => r.timings[k]))])),
    featuresPerImage: runs.map((r) => r.value.features.keypoints.length / 4),
  };
}
const matcher = await FeatureMatcher.create(ctx);
for (const firstOctave of [0, -1] as const) {
  const uploaded = featuresByOctave[firstOctave].map((f) => matcher.upload(f.descriptors));
  await matcher.match(uploaded[0], uploaded[1]); // warm-up
  const runs: Timed<Uint32Array>[] = [];
  for (const [i, j] of exhaustivePairs(uploaded.length)) runs.push(await timed(() => matcher.match(uploaded[i], uploaded[j])));
  result[`match_statue_first_octave_${firstOctave}`] = {
    pairs: runs.length,
    wallMsPerPair: median(runs.map((r) => r.wallMs)),
    cpuMsPerPair: median(runs.map((r) => r.cpuMs)),
    matchesPerPair: runs.map((r) => r.value.length / 2),
  };
  for (const u of uploaded) u.buffer.destroy();
}
// 4096 x 4096 features: the statue's descriptors repeated (the time does not depend on the values)
const source = featuresByOctave[-1][0].descriptors;
const big = new Uint8Array(4096 * 128);
for (let i = 0; i < 4096; i++) big.set(source.subarray((i % (source.length / 128)) * 128, ((i % (source.length / 128)) + 1) * 128), i * 128);
const [a, b] = [matcher.upload(big), matcher.upload(big)];
const runs: Timed<Uint32Array>[] = [];
for (let r = 0; r < 3; r++) runs.push(await timed(() => matcher.match(a, b)));
result.match_4096x4096 = { wallMsPerPair: median(runs.map((r) => r.wallMs)), cpuMsPerPair: median(runs.map((r) => r.cpuMs)), dispatchesPerDirection: Math.ceil(4096 / matcher.queryBlock(4096)) };
ctx.destroy();
console.log(json ? JSON.stringify(result, null, 2) : result);
