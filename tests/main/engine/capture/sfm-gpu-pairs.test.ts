/**
 * The wiring of `capture --features gpu` between pair selection, verification and the database,
 * without a GPU or COLMAP: which rule picks the pairs for which capture, which cameras give E,
 * and the rows a verified pair becomes. sfm-gpu.test.ts runs the whole path through COLMAP's mapper.
 */
import { describe, expect, it } from 'vitest';
import { freshSeed, rng } from '../../../helpers/random.js';
import { captureKind, choosePairs, twoViewRow, verificationIntrinsics } from '../../../../main/engine/capture/sfm-gpu.js';
import { defaultCameraParams, type DatabaseCamera } from '../../../../main/engine/sfm/colmap-database.js';
import { exhaustivePairs, sequentialPairs } from '../../../../main/engine/sfm/match-pairs.js';
import { TwoViewConfiguration } from '../../../../main/engine/sfm/verify/verify-options.js';
import { loopVideo, photoSet } from '../sfm/retrieval-sets.js';

describe('capture --features gpu: pairs by capture kind', () => {
  it('one clip is video; photos, or several inputs of any kind, are a photo set', () => {
    expect(captureKind([{ kind: 'video' }])).toBe('video');
    expect(captureKind([{ kind: 'photos' }])).toBe('photos');
    expect(captureKind([{ kind: 'video' }, { kind: 'video' }])).toBe('photos');
    expect(captureKind([{ kind: 'video' }, { kind: 'photos' }])).toBe('photos');
  });

  it('a clip: the sequential window plus loop candidates by retrieval; --matcher forces the plain rules', async () => {
    const seed = freshSeed();
    const frames = loopVideo(rng(seed), 20); // 40 frames, two laps
    const selection = await choosePairs('by-kind', 'video', frames);
    expect(selection.method).toBe('sequential+loops');
    const sequential = sequentialPairs(40);
    const chosen = new Set(selection.pairs.map((p) => p.join()));
    for (const p of sequential) expect(chosen.has(p.join())).toBe(true);
    expect(selection.retrieved, `seed ${seed}`).toBeGreaterThan(0);
    expect(selection.pairs).toHaveLength(sequential.length + selection.retrieved);
    // loop candidates are frames beyond the window
    expect(selection.pairs.filter(([i, j]) => j - i > 10 && !sequential.some(([a, b]) => a === i && b === j)).length).toBe(selection.retrieved);

    expect(await choosePairs('sequential', 'video', frames)).toEqual({ pairs: sequential, method: 'sequential', retrieved: 0 });
    expect(await choosePairs('exhaustive', 'video', frames)).toEqual({ pairs: exhaustivePairs(40), method: 'exhaustive', retrieved: 0 });
  });

  it('photos: every pair up to 100, retrieval beyond; --matcher sequential forces the window', async () => {
    const seed = freshSeed();
    const few = photoSet(rng(seed), 3, 4).images;
    expect(await choosePairs('by-kind', 'photos', few)).toEqual({ pairs: exhaustivePairs(12), method: 'exhaustive', retrieved: 0 });
    const many = photoSet(rng(seed + 1), 101, 1, 20).images;
    const retrieved = await choosePairs('by-kind', 'photos', many);
    expect(retrieved.method).toBe('retrieval');
    expect(retrieved.retrieved).toBe(retrieved.pairs.length);
    expect(retrieved.pairs.length).toBeLessThanOrEqual(25 * 101);
    expect(retrieved.pairs.length).toBeLessThan(exhaustivePairs(101).length);
    expect((await choosePairs('sequential', 'photos', many)).pairs).toEqual(sequentialPairs(101));
  });
});

describe('capture --features gpu: verification inputs and outputs', () => {
  it('E only where the focal length is a prior (COLMAP\'s rule); the guess gives F', () => {
    const cameras: Required<DatabaseCamera>[] = [
      { model: 'SIMPLE_RADIAL', width: 640, height: 360, params: defaultCameraParams('SIMPLE_RADIAL', 640, 360), priorFocalLength: false },
      { model: 'SIMPLE_RADIAL', width: 640, height: 360, params: Float64Array.from([500, 321, 179, 0]), priorFocalLength: true },
      { model: 'OPENCV', width: 800, height: 600, params: Float64Array.from([700, 710, 401, 299, 0, 0, 0, 0]), priorFocalLength: true },
    ];
    expect(verificationIntrinsics(cameras, [{ cameraId: 1 }, { cameraId: 2 }, { cameraId: 3 }, { cameraId: 2 }])).toEqual([
      undefined,
      { focalX: 500, focalY: 500, principalX: 321, principalY: 179 },
      { focalX: 700, focalY: 710, principalX: 401, principalY: 299 },
      { focalX: 500, focalY: 500, principalX: 321, principalY: 179 },
    ]);
  });

  it('a verified pair becomes its database row: ids from 1, its inliers and models', () => {
    const fundamental = Float64Array.from({ length: 9 }, (_, k) => k + 1);
    const rotation = Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    const row = twoViewRow({
      pair: [2, 5],
      inlierMatches: Uint32Array.from([4, 9, 6, 1]),
      geometry: { configuration: TwoViewConfiguration.CALIBRATED, inliers: Uint32Array.from([0, 3]), fundamental, rotation, translation: [0, 0, 1], inlierCounts: { essential: 2, fundamental: 2, homography: 0 } },
    });
    expect(row).toEqual({ image1: 3, image2: 6, config: 2, inlierMatches: Uint32Array.from([4, 9, 6, 1]), fundamental, essential: undefined, homography: undefined, rotation, translation: [0, 0, 1] });
  });
});
