import { describe, expect, it } from 'vitest';
import { removeRigGauge, RigGauge, type PoseBlock } from '../../../../main/engine/train/rig-gauge.js';
import { orbitCameras } from '../../../../main/engine/train/sample-scene.js';

describe('the rig gauge', () => {
  const cameras = orbitCameras(10, 64, 48);
  const blocks = (values: number[][]) => values.map((value) => ({ value: [...value], m: [0, 0, 0, 0, 0, 0], v: [0, 0, 0, 0, 0, 0], steps: 1 }));
  it('removes a small similarity of the whole rig and keeps one camera’s own correction', () => {
    // every camera turned 0.5 degrees about the world's y axis (about the origin) and the rig scaled by 2%
    const angle = (0.5 * Math.PI) / 180;
    const gauge = cameras.map((c) => {
      const m = c.worldToCamera;
      const R = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
      const centre = [0, 1, 2].map((k) => -(R[k] * m[3] + R[3 + k] * m[7] + R[6 + k] * m[11]));
      const omega = [0, 1, 2].map((r) => -R[3 * r + 1] * angle); // -R (0, angle, 0)
      const moved = [centre[0] * 0.02 + angle * centre[2], centre[1] * 0.02, centre[2] * 0.02 - angle * centre[0]];
      const tau = [0, 1, 2].map((r) => -(R[3 * r] * moved[0] + R[3 * r + 1] * moved[1] + R[3 * r + 2] * moved[2]));
      return [...omega, ...tau];
    });
    const poses = blocks(gauge);
    removeRigGauge(cameras, poses, 3.5);
    const size = (v: number[][]) => Math.sqrt(v.flat().reduce((sum, x) => sum + x * x, 0));
    expect(size(gauge)).toBeGreaterThan(0.01);
    expect(size(poses.map((p) => p.value))).toBeLessThan(1e-3 * size(gauge)); // first order: what is left is second order
    // each camera's own random error is mostly kept (the gauge is 7 of the rig's 60 directions)
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
    const own = cameras.map(() => [random() * 0.02, random() * 0.02, random() * 0.02, random() * 0.05, random() * 0.05, random() * 0.05]);
    const noisy = blocks(own);
    removeRigGauge(cameras, noisy, 3.5);
    expect(size(noisy.map((p) => p.value))).toBeGreaterThan(0.8 * size(own));
  });

  it('a reused gauge (its system cached per set of refined views) removes exactly what a fresh one does, as views join', () => {
    let seed = 11;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
    const cached = new RigGauge(cameras, 3.5);
    const reused: PoseBlock[] = cameras.map(() => ({ value: [0, 0, 0, 0, 0, 0], steps: 0 }));
    const fresh: PoseBlock[] = cameras.map(() => ({ value: [0, 0, 0, 0, 0, 0], steps: 0 }));
    let removed = 0;
    for (let update = 0; update < 40; update++) {
      // the first epoch refines the views one by one (the set grows), then every view is in it
      const view = update < cameras.length ? update : Math.floor((random() + 0.5) * cameras.length) % cameras.length;
      const delta = [random() * 0.01, random() * 0.01, random() * 0.01, random() * 0.03, random() * 0.03, random() * 0.03];
      for (const poses of [reused, fresh]) {
        poses[view].steps += 1;
        poses[view].value = poses[view].value.map((x, k) => x + delta[k]);
      }
      const before = reused.map((p) => [...p.value]);
      cached.remove(reused);
      removeRigGauge(cameras, fresh, 3.5);
      expect(reused.map((p) => p.value)).toEqual(fresh.map((p) => p.value)); // bit-identical, not close
      if (reused.some((p, i) => p.value.some((x, k) => x !== before[i][k]))) removed++;
    }
    expect(removed).toBeGreaterThan(30); // it did remove something (from the third refined view on)
  });

  it('a dolly moves each orbit camera along its optical axis, in proportion to its distance from the point they look at', () => {
    const gauge = new RigGauge(cameras, 3.5);
    for (let view = 0; view < cameras.length; view++) {
      // the camera looks at the origin from 3.2 away: a 1% longer focal is undone by moving 1% of that
      // back (the ridge towards the cameras' centroid, 0.3 above the origin, shifts the centre by ~0.5 mm)
      const dolly = gauge.dolly(view, 0.01);
      expect(dolly.slice(0, 3), `view ${view}`).toEqual([0, 0, 0]);
      expect(Math.hypot(dolly[3], dolly[4]), `view ${view}`).toBeLessThan(1e-5);
      expect(Math.abs(dolly[5] - 0.032), `view ${view}`).toBeLessThan(1e-5);
    }
  });

  it('with the focal tied, the dolly each view\'s focal change implies survives the removal and the rest of the similarity does not', () => {
    const gauge = new RigGauge(cameras, 3.5);
    let seed = 5;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
    const logFocal = cameras.map(() => 0.03 * random());
    // each view's own dolly, plus a turn of the whole rig (0.5 degrees about world y) and its shift
    const angle = (0.5 * Math.PI) / 180;
    const turn = cameras.map((c) => {
      const m = c.worldToCamera;
      const R = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
      const centre = [0, 1, 2].map((k) => -(R[k] * m[3] + R[3 + k] * m[7] + R[6 + k] * m[11]));
      const moved = [angle * centre[2] + 0.01, 0.02, -angle * centre[0]];
      return [...[0, 1, 2].map((r) => -R[3 * r + 1] * angle), ...[0, 1, 2].map((r) => -(R[3 * r] * moved[0] + R[3 * r + 1] * moved[1] + R[3 * r + 2] * moved[2]))];
    });
    const dollies = cameras.map((_, i) => gauge.dolly(i, logFocal[i]));
    const tied = blocks(cameras.map((_, i) => dollies[i].map((x, k) => x + turn[i][k])));
    gauge.remove(tied, logFocal);
    tied.forEach((p, i) => p.value.forEach((x, k) => expect(Math.abs(x - dollies[i][k]), `view ${i} row ${k}`).toBeLessThan(1e-12)));
    // untied, a common dolly is the rig's scale (about the point it looks at) and goes with the rest
    const common = blocks(cameras.map((_, i) => gauge.dolly(i, 0.02).map((x, k) => x + turn[i][k])));
    removeRigGauge(cameras, common, 3.5);
    common.forEach((p) => p.value.forEach((x) => expect(Math.abs(x)).toBeLessThan(1e-12)));
  });
});
