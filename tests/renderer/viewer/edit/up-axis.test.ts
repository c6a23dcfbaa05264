import { describe, expect, it } from 'vitest';
import { applySimilarity } from '../../../../renderer/src/viewer/edit/engine-frame.js';
import { quatRotate as rotateVector } from '../../../../shared/math/quaternion.js';
import { ENGINE_UP, fitPlane, groundPlaneTransform, rotationBetween, symmetricEigen3, upAxisTransform } from '../../../../renderer/src/viewer/edit/up-axis.js';
import type { Vec3 } from '../../../../renderer/src/viewer/opencv-frame.js';
import { freshSeed, rng } from '../../../helpers/random.js';

const normalize = (v: Vec3): Vec3 => {
  const l = Math.hypot(...v);
  return [v[0] / l, v[1] / l, v[2] / l];
};

describe('up axis and ground plane', () => {
  const seed = freshSeed();
  const random = rng(seed);
  const u = (a: number, b: number) => a + (b - a) * random();

  it('rotates any direction onto any other, the opposite one included', () => {
    for (let k = 0; k < 50; k++) {
      const a = normalize([u(-1, 1), u(-1, 1), u(-1, 1)]);
      const b = normalize([u(-1, 1), u(-1, 1), u(-1, 1)]);
      rotateVector(rotationBetween(a, b), a).forEach((v, i) => expect(v, `seed ${seed}`).toBeCloseTo(b[i], 9));
    }
    rotateVector(rotationBetween([0, 1, 0], [0, -1, 0]), [0, 1, 0]).forEach((v, i) => expect(v).toBeCloseTo([0, -1, 0][i], 9));
    expect(() => rotationBetween([0, 0, 0], [0, 1, 0])).toThrow(/non-zero/);
  });

  it('makes the view up the scene up, keeping the centre where it was', () => {
    const up = normalize([u(-1, 1), u(-1, 1), u(-1, 1)]);
    const centre: Vec3 = [u(-3, 3), u(-3, 3), u(-3, 3)];
    const t = upAxisTransform(up, centre);
    applySimilarity(t, centre).forEach((v, i) => expect(v).toBeCloseTo(centre[i], 9));
    const tip = applySimilarity(t, [centre[0] + up[0], centre[1] + up[1], centre[2] + up[2]]);
    [0, 1, 2].forEach((i) => expect(tip[i] - centre[i], `seed ${seed}`).toBeCloseTo(ENGINE_UP[i], 9));
  });

  it('diagonalises symmetric matrices', () => {
    const m = [
      [4, 1, 0.5],
      [1, 3, 0.2],
      [0.5, 0.2, 1],
    ];
    const { values, vectors } = symmetricEigen3(m);
    for (let k = 0; k < 3; k++) {
      const v = [vectors[0][k], vectors[1][k], vectors[2][k]];
      for (let r = 0; r < 3; r++) expect(m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2]).toBeCloseTo(values[k] * v[r], 9);
    }
  });

  it('puts noisy points of a random tilted plane on y = 0 with the normal up (fresh seed)', () => {
    const normal = normalize([u(-1, 1), u(-1, 1), u(-1, 1)]);
    const a = normalize([normal[1], -normal[0], 0]);
    const b: Vec3 = [normal[1] * a[2] - normal[2] * a[1], normal[2] * a[0] - normal[0] * a[2], normal[0] * a[1] - normal[1] * a[0]];
    const origin: Vec3 = [u(-5, 5), u(-5, 5), u(-5, 5)];
    const points: number[] = [];
    for (let i = 0; i < 400; i++) {
      const s = u(-2, 2);
      const t = u(-2, 2);
      const noise = u(-1e-3, 1e-3);
      for (let k = 0; k < 3; k++) points.push(origin[k] + s * a[k] + t * b[k] + noise * normal[k]);
    }
    const fitted = fitPlane(points);
    expect(Math.abs(fitted.normal[0] * normal[0] + fitted.normal[1] * normal[1] + fitted.normal[2] * normal[2]), `seed ${seed}`).toBeGreaterThan(0.9999);
    const transform = groundPlaneTransform(points, normal);
    for (let i = 0; i < 400; i++) expect(Math.abs(applySimilarity(transform, [points[i * 3], points[i * 3 + 1], points[i * 3 + 2]])[1]), `seed ${seed}`).toBeLessThan(5e-3);
    // the side the hint points to ends up above (-y)
    const above = applySimilarity(transform, [origin[0] + normal[0], origin[1] + normal[1], origin[2] + normal[2]]);
    expect(above[1]).toBeCloseTo(-1, 2);
  });

  it('refuses too few points and points on a line by name', () => {
    expect(() => fitPlane([0, 0, 0, 1, 1, 1])).toThrow(/at least 3 splats/);
    expect(() => fitPlane([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])).toThrow(/on a line/);
  });
});
