/**
 * Float64 CPU reference of marching cubes over a TSDF volume (kernels/marching-cubes.wgsl): the
 * same cell rule (every corner observed, not every corner saturated), the same tables
 * (main/engine/mesh/mc-tables.ts), triangles in cell order, vertices interpolated from each
 * edge's low point to its high point.
 */
import type { VoxelGrid } from '../../main/engine/mesh/grid.js';
import { MC_EDGES, MC_ROW, MC_TRIANGLE_COUNT, MC_TRIANGLES } from '../../main/engine/mesh/mc-tables.js';

export interface ReferenceSoup {
  triangles: number;
  positions: Float64Array;
  /** rgb per vertex (0..255, unrounded). */
  colors: Float64Array;
  keys: Uint32Array;
}

const SATURATED = Math.fround(0.999);

export function marchingCubesReference(grid: VoxelGrid, values: ArrayLike<number>, weights: ArrayLike<number>, colors: Uint32Array): ReferenceSoup {
  const [nx, ny, nz] = grid.dims;
  const index = (i: number, j: number, k: number) => i + nx * (j + ny * k);
  const positions: number[] = [];
  const rgb: number[] = [];
  const keys: number[] = [];
  const corner = (c: number) => [c & 1, (c >> 1) & 1, (c >> 2) & 1];
  for (let k = 0; k < nz - 1; k++) {
    for (let j = 0; j < ny - 1; j++) {
      for (let i = 0; i < nx - 1; i++) {
        let caseIndex = 0;
        let observed = true;
        let saturated = true;
        for (let c = 0; c < 8; c++) {
          const [dx, dy, dz] = corner(c);
          const p = index(i + dx, j + dy, k + dz);
          if (!(weights[p] > 0)) observed = false;
          if (!(Math.abs(values[p]) >= SATURATED)) saturated = false;
          if (values[p] < 0) caseIndex |= 1 << c;
        }
        if (!observed || saturated) continue;
        for (let t = 0; t < MC_TRIANGLE_COUNT[caseIndex]; t++) {
          for (let v = 0; v < 3; v++) {
            const [lo, hi, axis] = MC_EDGES[MC_TRIANGLES[caseIndex * MC_ROW + 3 * t + v]];
            const a = corner(lo);
            const b = corner(hi);
            const pa = [i + a[0], j + a[1], k + a[2]];
            const ia = index(pa[0], pa[1], pa[2]);
            const ib = index(i + b[0], j + b[1], k + b[2]);
            const va = values[ia];
            const vb = values[ib];
            const s = va / (va - vb);
            const grid3 = [...pa];
            grid3[axis] += s;
            for (let d = 0; d < 3; d++) positions.push(grid.origin[d] + grid3[d] * grid.voxelSize);
            const ca = colors[ia];
            const cb = colors[ib];
            const unpack = (w: number) => [w & 255, (w >>> 8) & 255, (w >>> 16) & 255];
            const col = ca >>> 24 === 0 ? unpack(cb) : cb >>> 24 === 0 ? unpack(ca) : unpack(ca).map((x, n) => x + (unpack(cb)[n] - x) * s);
            rgb.push(...col);
            keys.push(3 * ia + axis);
          }
        }
      }
    }
  }
  return { triangles: keys.length / 3, positions: Float64Array.from(positions), colors: Float64Array.from(rgb), keys: Uint32Array.from(keys) };
}

/** Signed distances of a union of spheres and boxes at every grid point, in truncation units, clamped to [-1, 1]. */
export function analyticTsdf(grid: VoxelGrid, shapes: readonly Shape[]): Float32Array {
  const [nx, ny, nz] = grid.dims;
  const out = new Float32Array(nx * ny * nz);
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++) {
        const p = [grid.origin[0] + i * grid.voxelSize, grid.origin[1] + j * grid.voxelSize, grid.origin[2] + k * grid.voxelSize];
        const d = Math.min(...shapes.map((s) => shapeDistance(s, p)));
        out[i + nx * (j + ny * k)] = Math.max(-1, Math.min(1, d / grid.truncation));
      }
    }
  }
  return out;
}

export type Shape = { kind: 'sphere'; center: number[]; radius: number } | { kind: 'box'; center: number[]; half: number[] };

export function shapeDistance(s: Shape, p: readonly number[]): number {
  if (s.kind === 'sphere') return Math.hypot(p[0] - s.center[0], p[1] - s.center[1], p[2] - s.center[2]) - s.radius;
  const q = [0, 1, 2].map((a) => Math.abs(p[a] - s.center[a]) - s.half[a]);
  const outside = Math.hypot(...q.map((x) => Math.max(x, 0)));
  return outside + Math.min(Math.max(q[0], q[1], q[2]), 0);
}
