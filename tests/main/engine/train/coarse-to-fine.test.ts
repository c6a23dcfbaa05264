import { describe, expect, it } from 'vitest';
import { coarseCamera, coarseLevels, coarseTrainingData, resolutionFactorAt } from '../../../../main/engine/train/coarse-to-fine.js';
import type { TrainingData } from '../../../../main/engine/train/data.js';
import { bytesToUnit, downscaleArea, quantizeToBytes } from '../../../../main/engine/formats/image-ops.js';
import { freshSeed, rng } from '../../../helpers/random.js';

const camera = { width: 40, height: 30, fx: 50, fy: 52, cx: 20, cy: 15, worldToCamera: new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1]), near: 0.01, far: 100 };

describe('the coarse-to-fine schedule', () => {
  it('halves the reduction at evenly spaced steps and is at full resolution from `until` of the run', () => {
    expect(coarseLevels({ factor: 4, until: 0.25 })).toEqual([4, 2]);
    expect(coarseLevels({ factor: 8, until: 0.25 })).toEqual([8, 4, 2]);
    expect(coarseLevels({ factor: 3, until: 0.25 })).toEqual([3, 1.5]);
    expect(coarseLevels({ factor: 1, until: 0.25 })).toEqual([]);
    const config = { factor: 4, until: 0.25 };
    const at = (step: number) => resolutionFactorAt(step, 10_000, config);
    expect([at(0), at(1249), at(1250), at(2499), at(2500), at(9999)]).toEqual([4, 4, 2, 2, 1, 1]);
    expect(resolutionFactorAt(0, 10_000, { factor: 1, until: 0.25 })).toBe(1);
    expect(resolutionFactorAt(0, 10_000, { factor: 4, until: 0 })).toBe(1);
  });

  it('scales a camera as --downscale does (size rounded, intrinsics by the exact ratio)', () => {
    const c = coarseCamera(camera as never, 4);
    expect([c.width, c.height]).toEqual([10, 8]);
    expect(c.fx).toBeCloseTo(50 / 4, 12);
    expect(c.fy).toBeCloseTo((52 * 8) / 30, 12);
    expect(c.cx).toBeCloseTo(5, 12);
    expect(c.worldToCamera).toBe(camera.worldToCamera);
  });

  it("area-averages the source's images, and keeps a mask byte where half the covered pixels were kept", async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const { width, height } = camera;
    const rgb8 = Uint8Array.from({ length: width * height * 3 }, () => Math.floor(random() * 256));
    const rgba8 = Uint8Array.from({ length: width * height * 4 }, (_, i) => (i % 4 === 3 ? ((Math.floor(i / 4) % width) < 9 ? 0 : 255) : Math.floor(random() * 256)));
    const floats = bytesToUnit(rgb8);
    const source = (bytes: Uint8Array): TrainingData => ({
      name: 'test', background: [0, 0, 0], sceneScale: 1,
      views: [{ name: 'v', camera: camera as never, split: 'train' }],
      loadImage: async () => floats,
      loadImageRgb8: async () => bytes,
    });
    const coarse = coarseTrainingData(source(rgb8), 4);
    expect([coarse.views[0].camera.width, coarse.views[0].camera.height]).toEqual([10, 8]);
    const want = downscaleArea({ width, height, channels: 3, data: floats }, 4).data;
    expect(await coarse.loadImage(0)).toEqual(want);
    expect(await coarse.loadImageRgb8!(0)).toEqual(quantizeToBytes(want));
    const masked = await coarseTrainingData(source(rgba8), 4).loadImageRgb8!(0);
    expect(masked.length).toBe(10 * 8 * 4);
    // columns 0-8 masked: output column 0 (source 0-3) and 1 (4-7) masked, column 2 (8-11: one of four) kept
    for (let y = 0; y < 8; y++) expect([0, 1, 2].map((x) => masked[4 * (y * 10 + x) + 3]), `seed ${seed}`).toEqual([0, 0, 255]);
  });
});
