import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readColmapModel } from '../../../../main/engine/dataset/colmap.js';
import type { ColmapModel } from '../../../../main/engine/dataset/colmap-model.js';
import { distortNormalized, lensOf } from '../../../../main/engine/dataset/distortion.js';
import { worldToCameraFromQuaternion } from '../../../../main/engine/dataset/pose.js';
import { diagnose, modelStats, type DiagnoseInput } from '../../../../main/engine/capture/sfm-report.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { sharedDataset } from '../../../helpers/shared-data.js';

const statue = sharedDataset('colmap_statue');

/** Two SIMPLE_RADIAL views of random points, observations projected exactly, then shifted by `offsetPx` in x. */
function syntheticModel(seed: number, offsetPx: number): ColmapModel {
  const random = rng(seed);
  const camera = { id: 1, model: 'SIMPLE_RADIAL', width: 200, height: 100, params: [150, 100, 50, 0.05 * (random() - 0.5)], source: '' };
  const n = 20;
  const positions = Float64Array.from({ length: n * 3 }, (_, i) => (i % 3 === 2 ? 4 + random() : random() - 0.5));
  const images = [0, 1].map((k) => {
    const qvec: [number, number, number, number] = [1, 0.02 * k, -0.01 * k, 0];
    const tvec: [number, number, number] = [0.2 * k, 0, 0];
    const m = worldToCameraFromQuaternion(qvec, tvec);
    const lens = lensOf({ model: camera.model, params: camera.params });
    const xy = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      const [X, Y, Z] = [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
      const c = [0, 1, 2].map((r) => m[4 * r] * X + m[4 * r + 1] * Y + m[4 * r + 2] * Z + m[4 * r + 3]);
      const [xd, yd] = distortNormalized(lens, c[0] / c[2], c[1] / c[2]);
      xy[2 * i] = lens.fx * xd + lens.cx + offsetPx;
      xy[2 * i + 1] = lens.fy * yd + lens.cy;
    }
    return { id: k + 1, qvec, tvec, cameraId: 1, name: `v${k}.jpg`, xy, point3DIds: Float64Array.from({ length: n }, (_, i) => i + 1), source: '' };
  });
  const points = { ids: Float64Array.from({ length: n }, (_, i) => i + 1), positions, colors: new Uint8Array(n * 3), errors: new Float64Array(n) };
  return { cameras: new Map([[1, camera]]), images, points, files: { cameras: '', images: '', points: '' } };
}

describe('model statistics', () => {
  it('projects through the lens: exact observations have zero error, shifted ones the shift', () => {
    const seed = freshSeed();
    const exact = modelStats(syntheticModel(seed, 0));
    expect(exact).toMatchObject({ registered: 2, points: 20, observations: 40, meanTrackLength: 2 });
    expect(exact.meanReprojectionErrorPx, `seed ${seed}`).toBeLessThan(1e-9);
    const shifted = modelStats(syntheticModel(seed, 0.75));
    expect(shifted.meanReprojectionErrorPx).toBeCloseTo(0.75, 9);
    expect(shifted.imageErrorPx['v1.jpg']).toBeCloseTo(0.75, 9);
  });

  it.runIf(statue.available)("agrees with the per-point errors COLMAP stored in colmap_statue's distorted (SIMPLE_RADIAL) model", async () => {
    const model = await readColmapModel(path.join(statue.dir, 'distorted_sparse', '0'));
    const stats = modelStats(model);
    const stored = model.points.errors.reduce((s, e) => s + e, 0) / model.points.errors.length;
    expect(stats.meanReprojectionErrorPx).toBeGreaterThan(0.1);
    expect(Math.abs(stats.meanReprojectionErrorPx - stored), `ours ${stats.meanReprojectionErrorPx}, COLMAP's ${stored}`).toBeLessThan(0.02);
  });
});

describe('diagnostics', () => {
  const clip = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `clip/frame_${String(i).padStart(6, '0')}.jpg`, timeS: i / 10 }));
  const base = (over: Partial<DiagnoseInput>): DiagnoseInput => ({ inputs: [{ name: 'clip', kind: 'video', images: clip(10) }], registered: new Set(clip(10).map((i) => i.name)), modelSizes: [10], meanReprojectionErrorPx: 0.4, features: {}, matcher: 'sequential', cameraModel: 'SIMPLE_RADIAL', ...over });

  it('says nothing when every image registered with a low error', () => {
    expect(diagnose(base({}))).toEqual([]);
  });

  it('names a run of unregistered video frames with its times, and their weak features', () => {
    const registered = new Set(clip(10).filter((_, i) => i < 4 || i > 6).map((i) => i.name));
    const out = diagnose(base({ registered, modelSizes: [7], features: { 'clip/frame_000005.jpg': 120 } })).map((d) => d.message);
    expect(out[0]).toMatch(/clip "clip": 3 frames clip\/frame_000004\.jpg \.\. clip\/frame_000006\.jpg \(0\.4-0\.6 s\) did not register: the camera moved too fast/);
    expect(out[1]).toMatch(/1 unregistered images have fewer than 500 SIFT features \(clip\/frame_000005\.jpg: 120\)/);
    expect(out[2]).toMatch(/Only 7 of 10 images registered \(70%\)/);
  });

  it('flags an input that shares nothing with the rest, split models, high error, and sequential matching across inputs', () => {
    const photos = ['p/a.jpg', 'p/b.jpg'].map((name) => ({ name }));
    const out = diagnose(base({ inputs: [{ name: 'clip', kind: 'video', images: clip(10) }, { name: 'p', kind: 'photos', images: photos }], modelSizes: [10, 4], meanReprojectionErrorPx: 2.5 }));
    const text = out.map((d) => d.message).join('\n');
    expect(text).toMatch(/photo folder "p": none of its 2 images registered/);
    expect(text).toMatch(/split the capture into 2 separate models \(10, 4 images\).*--matcher exhaustive/);
    expect(text).toMatch(/Mean reprojection error is 2\.50 px.*--camera-model OPENCV/);
    expect(text).toMatch(/Sequential matching links inputs only where they meet/);
  });

  it('names the images with no verified match, before the mapper has its say', () => {
    const registered = new Set(clip(10).filter((_, i) => i !== 9).map((i) => i.name));
    const out = diagnose(base({ registered, modelSizes: [9], unmatched: ['clip/frame_000009.jpg'] })).map((d) => d.message);
    expect(out).toContain('1 of 10 images have no verified match with any other image (clip/frame_000009.jpg): they share too few features with the rest (blur, plain surfaces, or a view nothing else sees); --matcher exhaustive tries every pair.');
    expect(diagnose(base({ unmatched: [] }))).toEqual([]);
  });

  it('explains a mapper that built nothing', () => {
    const out = diagnose(base({ registered: new Set(), modelSizes: [], meanReprojectionErrorPx: NaN, noInitialPair: true }));
    expect(out).toHaveLength(1);
    expect(out[0].message).toMatch(/could not build any model from the 10 images \(no initial image pair.*\)\. Try: more overlap/);
  });

  it("our mapper: each reason it gave names its images once, its failure is said with what to try, and a fallback is stated first", () => {
    const registered = new Set(clip(10).filter((_, i) => i < 6).map((i) => i.name));
    const reasons = [6, 7, 8].map((i) => ({ name: clip(10)[i].name, reason: 'in a separate group of 3 image(s), joined to the largest (6 images) by no verified pair with a relative pose' }));
    reasons.push({ name: clip(10)[9].name, reason: 'no verified pair with a relative pose joins it to another image' });
    const text = diagnose(base({ registered, modelSizes: [6], method: 'argonaut', unregisteredReasons: reasons })).map((d) => d.message);
    expect(text).toContain('3 image(s) not registered (clip/frame_000006.jpg, clip/frame_000007.jpg, clip/frame_000008.jpg): in a separate group of 3 image(s), joined to the largest (6 images) by no verified pair with a relative pose.');
    expect(text).toContain('1 image(s) not registered (clip/frame_000009.jpg): no verified pair with a relative pose joins it to another image.');
    const failed = diagnose(base({ registered: new Set(), modelSizes: [], meanReprojectionErrorPx: NaN, method: 'argonaut', failure: 'the images show no camera motion' }));
    expect(failed.map((d) => d.message)).toEqual(['Our mapper could not build any model from the 10 images: the images show no camera motion.']);
    const fallback = diagnose(base({ fallback: 'our SfM registered 2 of 10 images while 9 had a verified pair' }));
    expect(fallback[0].message).toBe("our SfM registered 2 of 10 images while 9 had a verified pair; COLMAP's mapper built this model instead.");
  });
});
