import { describe, expect, it } from 'vitest';
import { triangleCount, type TriangleMesh } from '../../../../main/engine/mesh/mesh.js';
import { removeUnsupportedComponents, supportedVertices } from '../../../../main/engine/mesh/support.js';
import { emptySplats, type SplatSet } from '../../../../shared/scene/splats.js';
import { freshSeed, rng } from '../../../helpers/random.js';

/**
 * Random splats: centres in the unit cube, scales over a decade, opacities either side of 0.5; the
 * first four are big (radius past BIG_SPLAT_CELLS cells, so they take the list of their own), two
 * opaque and two transparent, so they neither cover the whole volume nor all drop out.
 */
function randomSplats(random: () => number, count: number): SplatSet {
  const splats = emptySplats(count, 0);
  for (let i = 0; i < count; i++) {
    splats.means.set([random() * 2 - 1, random() * 2 - 1, random() * 2 - 1], 3 * i);
    const big = i < 4 ? Math.log(0.3 / 0.003) : 0; // radius 0.9..1.2 against 8 cells of at most ~0.09
    splats.logScales.set([0, 1, 2].map(() => Math.log(0.003) + Math.log(10) * random() * (big ? 0.125 : 1) + big), 3 * i);
    splats.opacityLogits[i] = i < 4 ? (i % 2 === 0 ? 2 : -2) : random() * 6 - 3;
  }
  return splats;
}

/** Brute force: whether any splat with opacity >= minOpacity holds the point within radiusScales x its largest scale. */
function supportedByBruteForce(p: number[], splats: SplatSet, radiusScales: number, minOpacity: number): boolean {
  for (let i = 0; i < splats.count; i++) {
    if (1 / (1 + Math.exp(-splats.opacityLogits[i])) < minOpacity) continue;
    const r = radiusScales * Math.exp(Math.max(splats.logScales[3 * i], splats.logScales[3 * i + 1], splats.logScales[3 * i + 2]));
    const d = Math.hypot(p[0] - splats.means[3 * i], p[1] - splats.means[3 * i + 1], p[2] - splats.means[3 * i + 2]);
    if (d <= r) return true;
  }
  return false;
}

/** A small closed tetrahedron piece around `c` (4 vertices, 4 triangles). */
function tetrahedron(c: number[], size: number, offset: number): { positions: number[]; indices: number[] } {
  const corners = [
    [1, 1, 1],
    [1, -1, -1],
    [-1, 1, -1],
    [-1, -1, 1],
  ];
  return {
    positions: corners.flatMap((k) => k.map((x, a) => c[a] + size * x)),
    indices: [0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2].map((i) => i + offset),
  };
}

describe('support: pieces far from the opaque splats', () => {
  it('the hash grid finds exactly the vertices brute force finds (random splats, big ones included)', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const splats = randomSplats(random, 600);
    const positions = Float32Array.from({ length: 3 * 2000 }, () => random() * 2.4 - 1.2);
    const got = supportedVertices(positions, splats, { radiusScales: 3, minOpacity: 0.5 });
    let mismatches = 0;
    let held = 0;
    for (let v = 0; v < 2000; v++) {
      const want = supportedByBruteForce([positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]], splats, 3, 0.5);
      if (want !== (got[v] === 1)) mismatches++;
      if (want) held++;
    }
    expect(mismatches, `seed ${seed}`).toBe(0);
    // both outcomes occur, so the comparison means something
    expect(held, `seed ${seed}`).toBeGreaterThan(40);
    expect(held, `seed ${seed}`).toBeLessThan(1960);
  });

  it('drops a piece with no opaque splat near it, keeps the one on the splats and a piece mostly supported', () => {
    const onSplats = tetrahedron([0, 0, 0], 0.1, 0);
    const far = tetrahedron([2, 0, 0], 0.1, 4);
    const half = tetrahedron([0, 2, 0], 0.1, 8);
    const mesh: TriangleMesh = {
      positions: Float32Array.from([...onSplats.positions, ...far.positions, ...half.positions]),
      colors: new Uint8Array(12 * 4).fill(200),
      indices: Uint32Array.from([...onSplats.indices, ...far.indices, ...half.indices]),
    };
    // opaque splats at the first piece's corners and at 3 of the third's 4 corners; a transparent
    // one on the far piece (it supports nothing)
    const centres = [...onSplats.positions, ...half.positions.slice(0, 9), 2, 0, 0];
    const splats = emptySplats(centres.length / 3, 0);
    splats.means.set(centres);
    splats.logScales.fill(Math.log(0.02));
    splats.opacityLogits.fill(3);
    splats.opacityLogits[splats.count - 1] = -3;
    splats.logScales.set([Math.log(0.5), Math.log(0.5), Math.log(0.5)], 3 * (splats.count - 1));
    const out = removeUnsupportedComponents(mesh, splats, { radiusScales: 3, minOpacity: 0.5, minFraction: 0.5 });
    expect(out.removedComponents).toBe(1);
    expect(out.removedTriangles).toBe(4);
    expect(triangleCount(out.mesh)).toBe(8);
    const xs = Array.from({ length: out.mesh.positions.length / 3 }, (_, v) => out.mesh.positions[3 * v]);
    expect(Math.max(...xs)).toBeLessThan(1);
    // a stricter fraction drops the 3/4-supported piece too; 0 keeps everything
    expect(removeUnsupportedComponents(mesh, splats, { radiusScales: 3, minOpacity: 0.5, minFraction: 0.9 }).removedComponents).toBe(2);
    expect(removeUnsupportedComponents(mesh, splats, { radiusScales: 3, minOpacity: 0.5, minFraction: 0 }).mesh).toBe(mesh);
  });
});
