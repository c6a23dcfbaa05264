import { describe, expect, it } from 'vitest';
import { cameraUp, dot3, groundFrame, symmetricEigen3, toGround, fromGround } from '../../../../main/engine/partition/ground.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { apply, rotationAbout, syntheticCity } from './synthetic-city.js';

describe('symmetricEigen3', () => {
  it('decomposes a random symmetric matrix (A v = lambda v, ascending, orthonormal)', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const b = Array.from({ length: 9 }, () => random() - 0.5);
    const a = [0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => b[i * 3 + j]! + b[j * 3 + i]!));
    const { values, vectors } = symmetricEigen3(a);
    expect(values[0], `seed ${seed}`).toBeLessThanOrEqual(values[1]);
    expect(values[1]).toBeLessThanOrEqual(values[2]);
    vectors.forEach((v, k) => {
      const av = [0, 1, 2].map((i) => a[i * 3]! * v[0] + a[i * 3 + 1]! * v[1] + a[i * 3 + 2]! * v[2]);
      for (let i = 0; i < 3; i++) expect(av[i]).toBeCloseTo(values[k] * v[i]!, 10);
      vectors.forEach((w, l) => expect(dot3(v, w)).toBeCloseTo(k === l ? 1 : 0, 10));
    });
  });
});

describe('groundFrame', () => {
  it.each([
    ['level', [1, 0, 0] as [number, number, number], 0],
    ['tilted 35 degrees', [1, 2, 0] as [number, number, number], (35 * Math.PI) / 180],
    ['upside down and turned', [0.3, -1, 0.5] as [number, number, number], 2.4],
  ])('finds the ground of a %s street of objects (up, and axisU along the street)', (_name, axis, angle) => {
    const seed = freshSeed();
    const rotation = rotationAbout(axis, angle);
    const city = syntheticCity(rng(seed), { cols: 5, rows: 2, rotation });
    const frame = groundFrame(city.cameras.map((c) => c.camera), city.points);
    const up = apply(rotation, [0, 0, 1]);
    const street = apply(rotation, [1, 0, 0]);
    expect(dot3(frame.up, up), `seed ${seed}`).toBeGreaterThan(0.995);
    expect(Math.abs(dot3(frame.axisU, street)), `seed ${seed}`).toBeGreaterThan(0.99);
    // right-handed and orthonormal
    expect(dot3(frame.axisU, frame.axisV)).toBeCloseTo(0, 9);
    const cross = [frame.axisU[1] * frame.axisV[2] - frame.axisU[2] * frame.axisV[1], frame.axisU[2] * frame.axisV[0] - frame.axisU[0] * frame.axisV[2], frame.axisU[0] * frame.axisV[1] - frame.axisU[1] * frame.axisV[0]];
    expect(dot3(cross, frame.up)).toBeCloseTo(1, 9);
  });

  it('falls back on the cameras\' up where the points are not flat (one object seen from all around)', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const rotation = rotationAbout([0, 1, 1], 0.7);
    const city = syntheticCity(random, { cols: 1, rows: 1, groundPoints: 0, camerasPerObject: 12, rotation });
    const frame = groundFrame(city.cameras.map((c) => c.camera), city.points);
    const up = apply(rotation, [0, 0, 1]);
    expect(dot3(frame.up, up), `seed ${seed}`).toBeGreaterThan(0.99);
    expect(dot3(cameraUp(city.cameras[0]!.camera), up)).toBeGreaterThan(0.3);
  });

  it('maps ground coordinates back to the same world point', () => {
    const city = syntheticCity(rng(freshSeed()), { cols: 3, rows: 2, rotation: rotationAbout([1, 1, 0], 0.4) });
    const frame = groundFrame(city.cameras.map((c) => c.camera), city.points);
    const p = [1.5, -2, 0.7];
    const [u, v, h] = toGround(frame, p);
    fromGround(frame, u, v, h).forEach((x, i) => expect(x).toBeCloseTo(p[i]!, 10));
  });
});
