import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CAMERA_LAG, CAMERA_REFINE_DEFAULTS, CameraRefiner, intrinsicsGroups, REFINE_CAPTURE_POSES_BY_DEFAULT, resolveRefineCameras } from '../../../../main/engine/train/camera-refine.js';
import { readCheckpoint, writeCheckpoint } from '../../../../main/engine/train/checkpoint.js';
import { orbitCameras, sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { RigGauge } from '../../../../main/engine/train/rig-gauge.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { correctCamera } from '../../../../shared/scene/camera-correction.js';
import type { PinholeCamera } from '../../../../shared/scene/camera.js';
import { testGpu } from '../../../helpers/gpu.js';
import { evaluateWithPoseAlignment } from '../../../../main/engine/train/pose-alignment.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';

const temp = cleanedTempDirs(afterAll);

const CAMERA: PinholeCamera = { width: 64, height: 48, fx: 50, fy: 50, cx: 32, cy: 24, worldToCamera: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 0, 0, 0, 1] };
const GRADIENT = [0.1, -0.2, 0.3, 1, 0.1, 0.1, -0.1, 1, 1, -1, 0, 0];

describe('camera refiner (host side)', () => {
  it("'auto' never refines exact poses; captures follow REFINE_CAPTURE_POSES_BY_DEFAULT", () => {
    expect(resolveRefineCameras('auto', true)).toBe(REFINE_CAPTURE_POSES_BY_DEFAULT ? 'poses' : 'off');
    expect(resolveRefineCameras('auto', false)).toBe('off');
    expect(resolveRefineCameras('auto', undefined)).toBe('off');
    expect(resolveRefineCameras('poses+intrinsics', false)).toBe('poses+intrinsics');
  });

  it('groups views by intrinsics and image size', () => {
    expect(intrinsicsGroups([CAMERA, { ...CAMERA }, { ...CAMERA, fx: 51 }, { ...CAMERA, width: 65 }, CAMERA])).toEqual([0, 0, 1, 2, 0]);
  });

  it('keeps the corrections at zero before the warm-up, ramps the rate, then decays it to finalRatio', () => {
    const r = new CameraRefiner({ ...CAMERA_REFINE_DEFAULTS, mode: 'poses', start: 100, ramp: 50, finalRatio: 0.01 }, [CAMERA], 1, 1100);
    expect(r.rateFactor(99)).toBe(0);
    expect(r.rateFactor(100)).toBeCloseTo(1 / 50, 12);
    expect(r.rateFactor(149)).toBeCloseTo(0.01 ** (49 / 1000), 12);
    expect(r.rateFactor(1100)).toBeCloseTo(0.01, 12);
  });

  it("the intrinsics' rate follows the poses' up to intrinsicsUntil, then stops, or decays to finalRatio by then with intrinsicsDecay", () => {
    const config = { ...CAMERA_REFINE_DEFAULTS, mode: 'poses+intrinsics' as const, start: 100, ramp: 50, finalRatio: 0.01 };
    const whole = new CameraRefiner(config, [CAMERA], 1, 1100);
    const cut = new CameraRefiner({ ...config, intrinsicsUntil: 0.5 }, [CAMERA], 1, 1100);
    const decayed = new CameraRefiner({ ...config, intrinsicsUntil: 0.5, intrinsicsDecay: true }, [CAMERA], 1, 1100);
    for (const step of [0, 99, 100, 149, 300, 549, 1099]) expect(whole.intrinsicsRateFactor(step), `step ${step}`).toBe(whole.rateFactor(step));
    expect(cut.intrinsicsRateFactor(549)).toBe(cut.rateFactor(549));
    expect(cut.intrinsicsRateFactor(550)).toBe(0);
    expect(decayed.intrinsicsRateFactor(99)).toBe(0);
    expect(decayed.intrinsicsRateFactor(149)).toBeCloseTo(0.01 ** (49 / 450), 12);
    expect(decayed.intrinsicsRateFactor(549)).toBeCloseTo(0.01 ** (449 / 450), 12);
    expect(decayed.intrinsicsRateFactor(550)).toBe(0);
  });

  it(`applies a step's gradient exactly ${CAMERA_LAG} steps later, in step order, with the corrections it was computed at`, async () => {
    const r = new CameraRefiner({ ...CAMERA_REFINE_DEFAULTS, mode: 'poses+intrinsics', start: 0, ramp: 1 }, [CAMERA, { ...CAMERA }], 2, 100);
    let release!: (g: number[]) => void;
    r.rendered(0, 0, new Promise((resolve) => (release = resolve)));
    r.rendered(1, 1, Promise.resolve(GRADIENT));
    await r.before(CAMERA_LAG - 1);
    expect(r.pose(0).rotation).toEqual([0, 0, 0]);
    const waiting = r.before(CAMERA_LAG); // must wait for step 0's gradient
    let done = false;
    void waiting.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    release(GRADIENT);
    await waiting;
    expect(r.pose(0).rotation.every((x) => x !== 0)).toBe(true);
    expect(r.pose(1).rotation).toEqual([0, 0, 0]); // step 1's waits for step 1 + LAG
    // the first Adam step moves each coordinate by the rate against the gradient's sign
    expect(r.pose(0).rotation[0]).toBeCloseTo(-CAMERA_REFINE_DEFAULTS.rates.rotation, 9);
    expect(r.intrinsicsOf(0).logFocal[0]).toBeCloseTo(-CAMERA_REFINE_DEFAULTS.rates.logFocal, 9);
    expect(r.camera(0)).toEqual(correctCamera(CAMERA, r.pose(0), r.intrinsicsOf(0)));
  });

  it('the camera solve runs every solve.every steps after start, before solve.until; it moves only views already stepped, deterministically', async () => {
    const config = { ...CAMERA_REFINE_DEFAULTS, mode: 'poses+intrinsics' as const, start: 0, ramp: 1, solve: { every: 10, iterations: 5, rate: 1, until: 0.5 } };
    expect([0, 5, 10, 20, 40, 50, 60].map((s) => new CameraRefiner(config, [CAMERA], 2, 100).solvesAt(s))).toEqual([false, false, true, true, true, false, false]);
    expect(new CameraRefiner({ ...config, solve: { ...config.solve, every: 0 } }, [CAMERA], 2, 100).solvesAt(10)).toBe(false);
    const run = async () => {
      const r = new CameraRefiner(config, [CAMERA, { ...CAMERA, worldToCamera: [1, 0, 0, 0.1, 0, 1, 0, 0, 0, 0, 1, 3, 0, 0, 0, 1] }, { ...CAMERA }], 2, 100);
      r.rendered(0, 0, Promise.resolve(GRADIENT));
      r.rendered(1, 1, Promise.resolve(GRADIENT));
      await r.before(10);
      const before = [0, 1, 2].map((v) => r.pose(v));
      const asked: number[] = [];
      await r.solve(10, [0, 1, 2], async (view) => (asked.push(view), { omega: [0.1, -0.2, 0.3], tau: [1, 0.1, 0.1], fx: -0.1, fy: 1, cx: 0, cy: 0 }));
      expect(asked).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1]); // view 2 never stepped: left out
      expect(r.pose(0).rotation[0]).toBeLessThan(before[0].rotation[0]);
      expect(r.pose(1).rotation[0]).toBeLessThan(before[1].rotation[0]);
      return r.state();
    };
    expect(await run()).toEqual(await run());
  });

  it('poses mode leaves the intrinsics alone; a non-finite gradient is skipped', async () => {
    const r = new CameraRefiner({ ...CAMERA_REFINE_DEFAULTS, mode: 'poses', start: 0, ramp: 1 }, [CAMERA], 1, 100);
    r.rendered(0, 0, Promise.resolve([NaN, ...GRADIENT.slice(1)]));
    r.rendered(1, 0, Promise.resolve(GRADIENT));
    await r.before(10);
    expect(r.intrinsicsOf(0)).toEqual({ logFocal: [0, 0], principal: [0, 0] });
    expect(r.pose(0).rotation[0]).toBeCloseTo(-CAMERA_REFINE_DEFAULTS.rates.rotation * r.rateFactor(1), 9); // one Adam step (step 1's), not two
  });

  it('with the focal gauge tied, a view not refined yet follows the rig: the dolly of the refined views\' mean focal change', async () => {
    const cameras = orbitCameras(5, 64, 48);
    const config = { ...CAMERA_REFINE_DEFAULTS, mode: 'poses+intrinsics' as const, start: 0, ramp: 1, focalGauge: true };
    const tied = new CameraRefiner(config, cameras, 3.5, 100);
    const untied = new CameraRefiner({ ...config, focalGauge: false }, cameras, 3.5, 100);
    for (const r of [tied, untied]) {
      [0, 1, 2, 3].forEach((view, step) => r.rendered(step, view, Promise.resolve(GRADIENT)));
      await r.before(3 + CAMERA_LAG);
    }
    const logFocal = tied.intrinsicsOf(0).logFocal;
    expect(Math.abs(logFocal[0])).toBeGreaterThan(1e-4); // the shared focal moved
    expect(tied.pose(4)).toEqual({ rotation: [0, 0, 0], translation: new RigGauge(cameras, 3.5).dolly(4, (logFocal[0] + logFocal[1]) / 2).slice(3) });
    expect(Math.abs(tied.pose(4).translation[2])).toBeGreaterThan(1e-4);
    expect(untied.pose(4)).toEqual({ rotation: [0, 0, 0], translation: [0, 0, 0] });
    expect(untied.intrinsicsOf(0)).toEqual(tied.intrinsicsOf(0)); // the tie moves cameras, never the focal's own steps
  });

  it('state round-trips, and a state for other views is refused by name', async () => {
    const config = { ...CAMERA_REFINE_DEFAULTS, mode: 'poses+intrinsics' as const, start: 0, ramp: 1 };
    const a = new CameraRefiner(config, [CAMERA, CAMERA], 1, 100);
    a.rendered(0, 1, Promise.resolve(GRADIENT));
    a.rendered(1, 0, Promise.resolve(GRADIENT));
    await a.settle();
    await a.before(CAMERA_LAG); // step 0 applied, step 1 pending
    const state = JSON.parse(JSON.stringify(a.state()));
    const b = new CameraRefiner(config, [CAMERA, CAMERA], 1, 100);
    b.restore(state, (m) => new Error(m));
    expect(b.state()).toEqual(a.state());
    await a.before(50);
    await b.before(50);
    expect(b.camera(0)).toEqual(a.camera(0));
    expect(() => new CameraRefiner(config, [CAMERA], 1, 100).restore(state, (m) => new Error(`ck.ckpt: ${m}`))).toThrow('ck.ckpt: camera refinement: expected 1 pose corrections');
  });
});

describe('training with camera refinement', () => {
  it.each([false, true])('a run resumed from a checkpoint ends bit-identical to the uninterrupted run (cameras and splats; focal gauge tied: %s)', async (focalGauge) => {
    const ctx = await testGpu();
    const data = { ...(await sampleScene(ctx, { width: 48, height: 36, views: 12, splats: 600 })), posesEstimated: true };
    const config = defaultTrainerConfig({ iterations: 40, shDegree: 0, initPoints: 400, seed: 5, cameraRefine: { ...CAMERA_REFINE_DEFAULTS, mode: 'poses+intrinsics', start: 5, ramp: 5, focalGauge } });
    const straight = await Trainer.create(ctx, data, config);
    for (let i = 0; i < 40; i++) await straight.trainStep();
    const want = await straight.download();
    const wantCameras = straight.refinedCameras()!;
    straight.destroy();
    const first = await Trainer.create(ctx, data, config);
    for (let i = 0; i < 17; i++) await first.trainStep();
    const state = await first.checkpointState();
    first.destroy();
    const file = path.join(await temp('ckpt-cams'), 'step-17.ckpt');
    await writeCheckpoint(file, state.header, state.blobs);
    const resumed = await Trainer.resume(ctx, data, config, await readCheckpoint(file), file);
    for (let i = 17; i < 40; i++) await resumed.trainStep();
    const got = await resumed.download();
    const gotCameras = resumed.refinedCameras()!;
    resumed.destroy();
    expect(gotCameras).toEqual(wantCameras);
    expect(wantCameras.some((c, i) => c.worldToCamera.some((x, k) => x !== data.views[i].camera.worldToCamera[k]))).toBe(true); // the cameras moved
    for (const key of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) expect(Buffer.from(got[key].buffer).equals(Buffer.from(want[key].buffer)), key).toBe(true);
  }, 300_000);

  it('test-time pose alignment recovers held-out views whose cameras are off (splats frozen)', async () => {
    const ctx = await testGpu();
    const truth = await sampleScene(ctx, { width: 48, height: 36, views: 16, splats: 800 });
    // held-out cameras turned by 2.5 degrees (about 2 pixels here) and moved by 2% of the scene: their images stay the true ones
    const off = (c: PinholeCamera) => correctCamera(c, { rotation: [0.025, -0.03, 0.01], translation: [0.02 * truth.sceneScale, 0, -0.01 * truth.sceneScale] });
    const data = { ...truth, views: truth.views.map((v) => (v.split === 'test' ? { ...v, camera: off(v.camera) } : v)) };
    const config = defaultTrainerConfig({ iterations: 300, shDegree: 0, initPoints: 800, seed: 2, cameraRefine: { ...CAMERA_REFINE_DEFAULTS, mode: 'poses', start: 10_000 } });
    const trainer = await Trainer.create(ctx, data, config);
    for (let i = 0; i < 300; i++) await trainer.trainStep();
    const plain = await trainer.evaluate();
    const aligned = await evaluateWithPoseAlignment(trainer);
    trainer.destroy();
    expect(aligned.evaluation.views.length).toBe(plain.views.length);
    expect(aligned.evaluation.psnr - plain.psnr, `plain ${plain.psnr.toFixed(2)}, aligned ${aligned.evaluation.psnr.toFixed(2)} dB`).toBeGreaterThan(1);
  }, 300_000);

  it("'auto' leaves the sample scene (exact poses) untouched", async () => {
    const ctx = await testGpu();
    const data = await sampleScene(ctx, { width: 32, height: 24, views: 8, splats: 200 });
    const trainer = await Trainer.create(ctx, data, defaultTrainerConfig({ iterations: 2, shDegree: 0, initPoints: 100 }));
    expect(trainer.config.cameraRefine.mode).toBe('auto');
    expect(trainer.refinedCameras()).toBeUndefined();
    trainer.destroy();
  });
});
