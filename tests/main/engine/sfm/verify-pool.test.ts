import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PinholeIntrinsics } from '../../../../main/engine/sfm/verify/verify-options.js';
import { verifyPairs } from '../../../../main/engine/sfm/verify/verify-pairs.js';
import { bundledWorkerScript, VerifyPool, verifyPairsInParallel } from '../../../../main/engine/sfm/verify/verify-pool.js';
import { repoRoot } from '../../../helpers/build.js';
import { freshSeed } from '../../../helpers/random.js';
import { CAMERA, syntheticPair, type SceneKind } from './verify-scenes.js';

const seed = freshSeed();

/** Keypoints as features.ts lays them out: x, y, scale, orientation. */
function keypoints(points: Float64Array): Float32Array {
  const out = new Float32Array(2 * points.length);
  for (let k = 0; k < points.length / 2; k++) out.set([points[2 * k], points[2 * k + 1], 2, 0], 4 * k);
  return out;
}

/**
 * Image pairs (2k, 2k + 1), each its own synthetic scene: every configuration, with and without
 * intrinsics, matches in identity order (keypoint k of one image to k of the other).
 */
function scenes(): { images: Float32Array[]; pairs: [number, number][]; matches: Uint32Array[]; cameras: (PinholeIntrinsics | undefined)[] } {
  // [kind, outlier share, calibrated, matches]: DEGENERATE from too few matches (all outliers would
  // run every RANSAC to its cap: seconds a pair on a loaded machine)
  const kinds: [SceneKind, number, boolean, number][] = [['general', 0.3, true, 200], ['planar', 0.3, true, 200], ['rotation', 0.2, true, 200], ['general', 0.4, false, 200], ['general', 0, true, 12], ['general', 0.1, true, 200], ['planar', 0.5, false, 200]];
  const images: Float32Array[] = [];
  const pairs: [number, number][] = [];
  const matches: Uint32Array[] = [];
  const cameras: (PinholeIntrinsics | undefined)[] = [];
  kinds.forEach(([kind, outliers, calibrated, count], k) => {
    const scene = syntheticPair(seed + k, kind, count, outliers, 0.5);
    images.push(keypoints(scene.points1), keypoints(scene.points2));
    cameras.push(CAMERA, calibrated ? CAMERA : undefined);
    pairs.push([2 * k, 2 * k + 1]);
    matches.push(Uint32Array.from({ length: 2 * scene.isInlier.length }, (_, i) => i >> 1));
  });
  return { images, pairs, matches, cameras };
}

let workerScript: URL;
let crashingWorker: URL;

beforeAll(async () => {
  // the worker as scripts/build.mjs bundles it, from this checkout's source
  const dir = mkdtempSync(path.join(tmpdir(), 'verify-pool-'));
  const outfile = path.join(dir, 'verify-worker.mjs');
  await build({ entryPoints: [path.join(repoRoot, 'main/engine/sfm/verify/verify-worker.ts')], outfile, bundle: true, platform: 'node', format: 'esm', logLevel: 'warning' });
  workerScript = pathToFileURL(outfile);
  const crashing = path.join(dir, 'crashing-worker.mjs');
  writeFileSync(crashing, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => { throw new Error('worker fell over'); });\n");
  crashingWorker = pathToFileURL(crashing);
});

describe(`verification on worker threads (seed ${seed})`, () => {
  const { images, pairs, matches, cameras } = scenes();
  const serial = verifyPairs(pairs, matches, images, cameras);

  it('gives the serial results exactly, whatever the thread count (and on this thread)', async () => {
    expect(new Set(serial.map((v) => v.geometry.configuration)).size).toBeGreaterThanOrEqual(4); // the pairs cover the configurations
    for (const threads of [1, 3]) {
      const pooled = await verifyPairsInParallel(pairs, matches, images, cameras, {}, { threads, workerScript });
      expect(pooled, `${threads} threads`).toEqual(serial);
    }
    expect(await verifyPairsInParallel(pairs, matches, images, cameras, {}, { threads: 0, workerScript })).toEqual(serial);
    expect(await verifyPairsInParallel(pairs, matches, images, cameras, {}, { workerScript: null })).toEqual(serial);
  }, 240_000);

  it('takes pairs while earlier ones are verified, and passes the options to every thread', async () => {
    const options = { maxErrorPx: 2, seed: 1234 };
    const expected = verifyPairs(pairs, matches, images, cameras, options);
    const counts: number[] = [];
    const pool = new VerifyPool(images, cameras, options, { threads: 2, workerScript, onVerified: (done) => counts.push(done) });
    expect(pool.threads).toBe(2);
    for (let p = 0; p < pairs.length; p++) {
      pool.add(pairs[p], matches[p]);
      await new Promise((resolve) => setTimeout(resolve, p % 2 ? 0 : 20));
    }
    expect(await pool.finish()).toEqual(expected);
    expect(counts).toEqual(pairs.map((_, p) => p + 1));
  }, 120_000);

  it('reports progress once per pair, up to the total', async () => {
    const seen: [number, number][] = [];
    await verifyPairsInParallel(pairs, matches, images, cameras, {}, { threads: 2, workerScript, onPair: (done, total) => seen.push([done, total]) });
    expect(seen).toEqual(pairs.map((_, p) => [p + 1, pairs.length]));
  }, 120_000);

  it('names the pair whose match points past its image, and a thread that fails', async () => {
    const bad = [...matches.slice(0, 3), Uint32Array.from([0, 100000])];
    await expect(verifyPairsInParallel(pairs.slice(0, 4), bad, images, cameras, {}, { threads: 2, workerScript })).rejects.toThrow(/pair \(6, 7\).*100000/);
    await expect(verifyPairsInParallel(pairs.slice(0, 2), matches.slice(0, 2), images, cameras, {}, { threads: 1, workerScript: crashingWorker })).rejects.toThrow(/thread failed on pair \(0, 1\): worker fell over/);
    await expect(verifyPairsInParallel(pairs, [], images, cameras, {}, { workerScript })).rejects.toThrow(/7 pairs but 0 match lists/);
  });

  it('stops on a cancel: finish() rejects as cancelled, on threads and on this thread', async () => {
    for (const threads of [2, 0]) {
      const controller = new AbortController();
      const pool = new VerifyPool(images, cameras, {}, { threads, workerScript, signal: controller.signal, onVerified: () => controller.abort() });
      pairs.forEach((pair, p) => pool.add(pair, matches[p]));
      await expect(pool.finish(), `${threads} threads`).rejects.toThrow(/cancelled/);
    }
    const aborted = AbortSignal.abort();
    await expect(verifyPairsInParallel(pairs, matches, images, cameras, {}, { threads: 1, workerScript, signal: aborted })).rejects.toThrow(/cancelled/);
  });

  it('refuses a missing worker by its path, and finds none when run from source', () => {
    expect(() => new VerifyPool(images, cameras, {}, { threads: 1, workerScript: pathToFileURL('/nowhere/verify-worker.mjs') })).toThrow(/\/nowhere\/verify-worker\.mjs is missing/);
    expect(() => new VerifyPool(images, cameras, {}, { threads: -1, workerScript })).toThrow(/threads must be a whole number/);
    expect(bundledWorkerScript()).toBeNull();
  });
});
