/**
 * Matching's cost per pair at a fixed load: `pairs` sequential pairs of images with `features`
 * random RootSIFT-like descriptors each (tests/parity/match.parity.ts descriptorSets), through
 * matchImagePairs at the adapter's own cap and at `cap` (2^29 by default: every pair batched, as on
 * a hardware GPU). Wall and process CPU ms per pair, after one warm-up pair (pipeline compiles).
 * Bundled with esbuild and scripts/wgsl-plugin.mjs (the kernels are imported as text), then
 *   node out/tmp/sfm-match-batch.mjs [pairs] [features] [cap]
 */
import { openGpu } from '../main/engine/gpu/context.js';
import { matchImagePairs } from '../main/engine/sfm/match.js';
import { sequentialPairs } from '../main/engine/sfm/match-pairs.js';
import { descriptorSets } from '../tests/parity/match.parity.js';
import { rng } from '../tests/helpers/random.js';

const [pairCount = 20, features = 4096, cap = 2 ** 29] = process.argv.slice(2).map(Number);
const random = rng(1);
// every image its own random set: the matches are few, the dot products all of them
const images = Array.from({ length: pairCount + 1 }, () => ({ descriptors: descriptorSets(random, features, 1).a }));
const pairs = sequentialPairs(images.length, 1).slice(0, pairCount);
const ctx = await openGpu({});
const cpuMs = (): number => (process.cpuUsage().user + process.cpuUsage().system) / 1000;
await matchImagePairs(ctx, images, pairs.slice(0, 1));
for (const [label, maxDots] of [['adapter cap', undefined], [`cap ${cap}`, cap]] as const) {
  const wall = performance.now();
  const cpu = cpuMs();
  const out = await matchImagePairs(ctx, images, pairs, {}, undefined, maxDots);
  const w = performance.now() - wall;
  const c = cpuMs() - cpu;
  console.log(`${ctx.info.adapter.name}: ${pairs.length} pairs of ${features} x ${features}, ${label}: ${(w / pairs.length).toFixed(1)} wall ms a pair, ${(c / pairs.length).toFixed(1)} CPU ms a pair (${out.reduce((s, m) => s + m.length / 2, 0)} matches)`);
}
ctx.destroy?.();
process.exit(0);
