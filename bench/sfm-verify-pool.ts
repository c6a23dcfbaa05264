/**
 * Verification's wall time per pair, serial (verifyPairs) against the worker pool
 * (verifyPairsInParallel) at 1..`maxThreads` threads, on `pairs` synthetic pairs of `matches`
 * matches (tests/main/engine/sfm/verify-scenes.ts: general scenes, 30% outliers, 0.5 px; no
 * intrinsics, as a clip's frames without EXIF are verified: F and H). The worker is the built one
 * (node scripts/build.mjs --node: out/host/verify-worker.mjs). Checks the results are identical.
 *   npx esbuild bench/sfm-verify-pool.ts --bundle --platform=node --format=esm --outfile=out/tmp/sfm-verify-pool.mjs
 *   && node out/tmp/sfm-verify-pool.mjs [pairs] [matches] [maxThreads]
 */
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { verifyPairs } from '../main/engine/sfm/verify/verify-pairs.js';
import { verifyPairsInParallel } from '../main/engine/sfm/verify/verify-pool.js';
import { syntheticPair } from '../tests/main/engine/sfm/verify-scenes.js';

const [pairCount = 16, matchCount = 2000, maxThreads = 2] = process.argv.slice(2).map(Number);
const workerScript = pathToFileURL(path.resolve('out/host/verify-worker.mjs'));
const keypoints: Float32Array[] = [];
const pairs: [number, number][] = [];
const matches: Uint32Array[] = [];
for (let p = 0; p < pairCount; p++) {
  const scene = syntheticPair(100 + p, 'general', matchCount, 0.3, 0.5);
  for (const points of [scene.points1, scene.points2]) keypoints.push(Float32Array.from({ length: 2 * points.length }, (_, i) => (i % 4 < 2 ? points[(i >> 2) * 2 + (i % 4)] : 0)));
  pairs.push([2 * p, 2 * p + 1]);
  matches.push(Uint32Array.from({ length: 2 * matchCount }, (_, i) => i >> 1));
}
const cameras = undefined;
verifyPairs(pairs.slice(0, 2), matches.slice(0, 2), keypoints, cameras); // warm-up (JIT)
const cpuMs = (): number => (process.cpuUsage().user + process.cpuUsage().system) / 1000;
let started = performance.now();
let startedCpu = cpuMs();
const serial = verifyPairs(pairs, matches, keypoints, cameras);
const serialMs = (performance.now() - started) / pairCount;
console.log(`serial: ${serialMs.toFixed(0)} wall ms a pair, ${((cpuMs() - startedCpu) / pairCount).toFixed(0)} CPU ms (${pairCount} pairs of ${matchCount} matches)`);
for (let threads = 1; threads <= maxThreads; threads++) {
  started = performance.now();
  startedCpu = cpuMs();
  const pooled = await verifyPairsInParallel(pairs, matches, keypoints, cameras, {}, { threads, workerScript });
  const ms = (performance.now() - started) / pairCount;
  console.log(`pool, ${threads} thread(s): ${ms.toFixed(0)} wall ms a pair (${(serialMs / ms).toFixed(2)}x serial), ${((cpuMs() - startedCpu) / pairCount).toFixed(0)} CPU ms (all threads), identical: ${isDeepStrictEqual(pooled, serial)}`);
}
