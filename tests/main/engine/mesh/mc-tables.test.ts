import { describe, expect, it } from 'vitest';
import { MC_EDGES, MC_ROW, MC_TRIANGLE_COUNT, MC_TRIANGLES } from '../../../../main/engine/mesh/mc-tables.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { analyticTsdf, marchingCubesReference, type Shape } from '../../../reference/marching-cubes.js';

describe('marching-cubes tables', () => {
  it('give each case triangles over its crossing edges only, every crossing edge used', () => {
    for (let c = 0; c < 256; c++) {
      const crossing = MC_EDGES.map(([lo, hi]) => ((c >> lo) & 1) !== ((c >> hi) & 1));
      const used = new Set<number>();
      for (let i = 0; i < 3 * MC_TRIANGLE_COUNT[c]; i++) used.add(MC_TRIANGLES[c * MC_ROW + i]);
      expect([...used].every((e) => crossing[e]), `case ${c}`).toBe(true);
      expect(used.size, `case ${c}`).toBe(crossing.filter(Boolean).length);
      expect(MC_TRIANGLES[c * MC_ROW + 3 * MC_TRIANGLE_COUNT[c]], `case ${c} is -1 terminated`).toBe(-1);
    }
    expect(MC_TRIANGLE_COUNT[0]).toBe(0);
    expect(MC_TRIANGLE_COUNT[255]).toBe(0);
    expect(Math.max(...MC_TRIANGLE_COUNT)).toBeLessThanOrEqual(5);
  });

  it('make closed, consistently oriented, outward-facing surfaces from random unions of spheres and boxes', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const dims: [number, number, number] = [30, 27, 33];
    const voxelSize = 2 / 32;
    const grid = { origin: [-1, -1, -1] as [number, number, number], voxelSize, dims, truncation: 3 * voxelSize };
    const shapes: Shape[] = [];
    for (let i = 0; i < 4; i++) {
      const center = [0, 1, 2].map(() => 0.5 * (random() - 0.5));
      shapes.push(random() < 0.5 ? { kind: 'sphere', center, radius: 0.1 + 0.3 * random() } : { kind: 'box', center, half: [0, 1, 2].map(() => 0.1 + 0.25 * random()) });
    }
    const values = analyticTsdf(grid, shapes);
    const soup = marchingCubesReference(grid, values, new Float32Array(values.length).fill(1), new Uint32Array(values.length));
    expect(soup.triangles, `seed ${seed}`).toBeGreaterThan(100);
    // directed edges between welded vertices (keys): each appears once, its reverse once
    const directed = new Map<string, number>();
    let volume = 0;
    for (let t = 0; t < soup.triangles; t++) {
      const k = [soup.keys[3 * t], soup.keys[3 * t + 1], soup.keys[3 * t + 2]];
      for (let v = 0; v < 3; v++) {
        const key = `${k[v]}>${k[(v + 1) % 3]}`;
        directed.set(key, (directed.get(key) ?? 0) + 1);
      }
      const p = [0, 1, 2].map((v) => [0, 1, 2].map((d) => soup.positions[9 * t + 3 * v + d]));
      volume += (p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) - p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) + p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0])) / 6;
    }
    let unmatched = 0;
    for (const [key, n] of directed) {
      const [a, b] = key.split('>');
      if (n !== 1 || directed.get(`${b}>${a}`) !== 1) unmatched++;
    }
    expect(unmatched, `seed ${seed}: directed edges without exactly one opposite`).toBe(0);
    expect(volume, `seed ${seed}: enclosed volume (positive when normals face outward)`).toBeGreaterThan(0);
  });
});
