import { describe, expect, it } from 'vitest';
import { removeOutsideCameras, removeSmallComponents, removeUnseen, triangleComponents } from '../../../../main/engine/mesh/cleanup.js';
import { gridForBounds, slabsOf, splatBounds } from '../../../../main/engine/mesh/grid.js';
import type { TriangleSoup } from '../../../../main/engine/mesh/marching-cubes.js';
import { compactMesh, computeNormals, triangleCount, vertexCount, weldSoup, type TriangleMesh } from '../../../../main/engine/mesh/mesh.js';
import { simplifyMesh } from '../../../../main/engine/mesh/simplify.js';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { lookAt } from '../../../../shared/scene/camera.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { analyticTsdf, marchingCubesReference } from '../../../reference/marching-cubes.js';

/** A marching-cubes sphere from the reference, as the GPU would hand it over. */
function sphereSoup(radius: number, center = [0, 0, 0], n = 24): TriangleSoup {
  const voxelSize = 2 / (n - 1);
  const grid = { origin: [-1, -1, -1] as [number, number, number], voxelSize, dims: [n, n, n] as [number, number, number], truncation: 3 * voxelSize };
  const values = analyticTsdf(grid, [{ kind: 'sphere', center, radius }]);
  const ref = marchingCubesReference(grid, values, new Float32Array(values.length).fill(1), new Uint32Array(values.length).fill(0xff336699));
  const colors = new Uint8Array(ref.triangles * 12);
  for (let v = 0; v < ref.triangles * 3; v++) colors.set([...ref.colors.subarray(3 * v, 3 * v + 3), 255], 4 * v);
  return { triangles: ref.triangles, positions: Float32Array.from(ref.positions), colors, keys: ref.keys };
}

function merge(a: TriangleMesh, b: TriangleMesh): TriangleMesh {
  const n = vertexCount(a);
  return {
    positions: Float32Array.from([...a.positions, ...b.positions]),
    colors: Uint8Array.from([...a.colors, ...b.colors]),
    indices: Uint32Array.from([...a.indices, ...[...b.indices].map((i) => i + n)]),
  };
}

describe('welding', () => {
  it('merges the soup into a closed mesh: V - E + F = 2 for a sphere, every vertex used, colours kept', () => {
    const soup = sphereSoup(0.6);
    const mesh = weldSoup(soup);
    expect(triangleCount(mesh)).toBe(soup.triangles);
    const edges = new Set<string>();
    for (let t = 0; t < mesh.indices.length; t += 3) {
      for (let k = 0; k < 3; k++) {
        const a = mesh.indices[t + k];
        const b = mesh.indices[t + ((k + 1) % 3)];
        edges.add(a < b ? `${a},${b}` : `${b},${a}`);
      }
    }
    expect(vertexCount(mesh) - edges.size + triangleCount(mesh)).toBe(2);
    expect(new Set(mesh.indices).size).toBe(vertexCount(mesh));
    expect([...mesh.colors.subarray(0, 3)]).toEqual([0x99, 0x66, 0x33]);
  });
});

describe('clean-up', () => {
  it('keeps components by size relative to the largest', () => {
    const big = weldSoup(sphereSoup(0.6));
    const small = weldSoup(sphereSoup(0.12, [0.75, 0.75, 0.75]));
    const both = merge(big, small);
    expect(triangleComponents(both).sizes.length).toBe(2);
    const kept = removeSmallComponents(both, 0.2);
    expect(kept.removedComponents).toBe(1);
    expect(triangleCount(kept.mesh)).toBe(triangleCount(big));
    expect(vertexCount(kept.mesh)).toBe(vertexCount(big));
    expect(removeSmallComponents(both, 0).removedComponents).toBe(0);
  });

  it('drops triangles no camera sees', () => {
    const left = weldSoup(sphereSoup(0.2, [-0.6, 0, 0]));
    const right = weldSoup(sphereSoup(0.2, [0.6, 0, 0]));
    const both = merge(left, right);
    // a narrow camera on the -x side looking along +x... at the left sphere only
    const camera = { width: 64, height: 64, fx: 200, fy: 200, cx: 32, cy: 32, worldToCamera: lookAt([-0.6, 0, 3], [-0.6, 0, 0]) };
    const out = removeOutsideCameras(both, [camera]);
    expect(out.removedTriangles).toBe(triangleCount(right));
    expect(triangleCount(out.mesh)).toBe(triangleCount(left));
  });

  it('drops the triangles none of whose vertices enough views see, and keeps a triangle one seen vertex holds', () => {
    const mesh = weldSoup(sphereSoup(0.5));
    const n = vertexCount(mesh);
    // the lower half unseen (one view at most), the upper half seen by three
    const seen = new Uint32Array(n);
    for (let v = 0; v < n; v++) seen[v] = mesh.positions[3 * v + 1] > 0 ? 3 : v % 2;
    const out = removeUnseen(mesh, seen, 2);
    let want = 0;
    for (let t = 0; t < triangleCount(mesh); t++) if ([0, 1, 2].some((k) => seen[mesh.indices[3 * t + k]] >= 2)) want++;
    expect(triangleCount(out.mesh)).toBe(want);
    expect(out.removedTriangles).toBe(triangleCount(mesh) - want);
    expect(out.removedTriangles).toBeGreaterThan(triangleCount(mesh) / 3);
    // every kept vertex of a removed-side triangle touches a seen one: the border row stays
    for (let v = 0; v < vertexCount(out.mesh); v++) expect(Number.isFinite(out.mesh.positions[3 * v])).toBe(true);
    expect(removeUnseen(mesh, seen, 0).removedTriangles).toBe(0);
    expect(() => removeUnseen(mesh, new Uint32Array(n - 1), 2)).toThrow(/counts for/);
  });

  it('compacts to the vertices the kept triangles use', () => {
    const mesh = weldSoup(sphereSoup(0.5));
    const half = compactMesh(mesh, (t) => t % 2 === 0);
    expect(triangleCount(half)).toBe(Math.ceil(triangleCount(mesh) / 2));
    expect(new Set(half.indices).size).toBe(vertexCount(half));
  });
});

describe('normals and simplification', () => {
  it('points normals outward on a sphere', () => {
    const mesh = computeNormals(weldSoup(sphereSoup(0.6)));
    let worst = 1;
    for (let v = 0; v < vertexCount(mesh); v++) {
      const p = mesh.positions.subarray(3 * v, 3 * v + 3);
      const n = mesh.normals!.subarray(3 * v, 3 * v + 3);
      worst = Math.min(worst, (p[0] * n[0] + p[1] * n[1] + p[2] * n[2]) / Math.hypot(p[0], p[1], p[2]));
    }
    expect(worst).toBeGreaterThan(0.9);
  });

  it('simplifies to the triangle budget and stays on the surface', async () => {
    const mesh = weldSoup(sphereSoup(0.6, [0, 0, 0], 40));
    const target = Math.floor(triangleCount(mesh) / 10);
    const { mesh: small } = await simplifyMesh(mesh, target);
    expect(triangleCount(small)).toBeLessThanOrEqual(target);
    expect(triangleCount(small)).toBeGreaterThan(target / 2);
    for (let v = 0; v < vertexCount(small); v++) expect(Math.abs(Math.hypot(small.positions[3 * v], small.positions[3 * v + 1], small.positions[3 * v + 2]) - 0.6)).toBeLessThan(0.02);
    expect((await simplifyMesh(mesh, 0)).mesh).toBe(mesh);
  });
});

describe('grid', () => {
  it('sizes the voxels from the longest side and pads by the truncation', () => {
    const grid = gridForBounds({ min: [0, 0, 0], max: [2, 1, 0.5] }, 100, 4);
    expect(grid.voxelSize).toBeCloseTo(0.02);
    expect(grid.truncation).toBeCloseTo(0.08);
    expect(grid.origin[0]).toBeCloseTo(-5 * 0.02);
    expect(grid.origin[0] + (grid.dims[0] - 1) * grid.voxelSize).toBeGreaterThanOrEqual(2 + 4 * 0.02);
    expect(() => gridForBounds({ min: [0, 0, 0], max: [0, 0, 0] }, 100, 4)).toThrow(/empty/);
  });

  it('cuts layers into slabs within the per-dispatch budget', () => {
    const slabs = slabsOf(10, 100, 350);
    expect(slabs).toEqual([{ z0: 0, layers: 3 }, { z0: 3, layers: 3 }, { z0: 6, layers: 3 }, { z0: 9, layers: 1 }]);
    expect(slabsOf(4, 1000, 10)).toHaveLength(4); // a layer over the budget still goes one at a time
  });

  it('takes robust bounds from opaque splats, ignoring a few far floaters', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const splats = emptySplats(2000, 0);
    for (let i = 0; i < 2000; i++) {
      const far = i < 5;
      for (let a = 0; a < 3; a++) splats.means[3 * i + a] = far ? 50 : random() * 2 - 1;
      splats.opacityLogits[i] = i >= 5 && i < 100 ? -10 : 3; // transparent ones are ignored too
    }
    const b = splatBounds(splats, { margin: 0 });
    for (let a = 0; a < 3; a++) {
      expect(b.min[a], `seed ${seed}`).toBeGreaterThan(-1.05);
      expect(b.max[a], `seed ${seed}`).toBeLessThan(1.05);
      expect(b.max[a] - b.min[a], `seed ${seed}`).toBeGreaterThan(1.9);
    }
  });
});
