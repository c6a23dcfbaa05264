/**
 * Float64 CPU reference of TSDF fusion and free-space carving (kernels/tsdf.wgsl): the same
 * per-point rules, written for clarity. Points whose outcome hinges on a float32 rounding (a projection within a hair of a
 * pixel edge or the image border, a signed distance at the truncation boundary, the near plane)
 * are reported as ambiguous so a parity test can leave them out and count them.
 */
import type { PinholeCamera } from '../../shared/scene/camera.js';
import type { VoxelGrid } from '../../main/engine/mesh/grid.js';

export interface TsdfState {
  values: Float64Array;
  weights: Float64Array;
  /** rgba8 words: rgb running mean, a = colour observations. */
  colors: Uint32Array;
  /** Views that saw the point as empty. */
  freeVotes: Uint32Array;
}

export interface TsdfReferenceView {
  camera: PinholeCamera;
  /** Per pixel (stride = camera.width): sum of w z, or the depth itself for depthMode 'direct'. */
  depth: Float32Array;
  /** vec4 per pixel: rgb over black, alpha. */
  image: Float32Array;
  /** The training image's own alpha per pixel, when the view has one. */
  imageAlpha?: Float32Array;
}

export interface TsdfReferenceOptions {
  alphaMin: number;
  carve: boolean;
  depthMode: 'expected' | 'direct';
  near: number;
  /** Free-space vote below this alpha (rendered or the image's). */
  carveAlpha: number;
  /** Free-space vote where the seen surface lies more than this (world units) beyond the point. */
  carveDepth: number;
}

const EDGE = 1e-3; // pixels
const BOUNDARY = 1e-4; // truncation units

/**
 * A world point in a camera (tsdf.wgsl view_point): camera coordinates and pixel coordinates, or
 * undefined behind the near plane or outside the image; `onAmbiguous` where either test, or the
 * pixel the point falls in, is a float32 question.
 */
function viewPoint(camera: PinholeCamera, p: readonly number[], near: number, onAmbiguous: () => void): { pc: number[]; u: number; v: number } | undefined {
  const m = camera.worldToCamera;
  const pc = [0, 1, 2].map((r) => m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3]);
  if (Math.abs(pc[2] - near) < 1e-5) onAmbiguous();
  if (pc[2] <= near) return undefined;
  const u = (camera.fx * pc[0]) / pc[2] + camera.cx;
  const v = (camera.fy * pc[1]) / pc[2] + camera.cy;
  const nearEdge = (x: number) => Math.abs(x - Math.round(x)) < EDGE;
  if (nearEdge(u) || nearEdge(v)) onAmbiguous();
  if (!(u >= 0 && v >= 0 && u < camera.width && v < camera.height)) return undefined;
  return { pc, u, v };
}

/** Fuses one view into `state` (in place); adds ambiguous point indices to `ambiguous`. */
export function integrateReference(grid: VoxelGrid, state: TsdfState, view: TsdfReferenceView, options: TsdfReferenceOptions, ambiguous: Set<number>): void {
  const [nx, ny, nz] = grid.dims;
  const { width } = view.camera;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++) {
        const index = i + nx * (j + ny * k);
        const p = [grid.origin[0] + i * grid.voxelSize, grid.origin[1] + j * grid.voxelSize, grid.origin[2] + k * grid.voxelSize];
        const seen = viewPoint(view.camera, p, options.near, () => ambiguous.add(index));
        if (!seen) continue;
        const { pc, u, v } = seen;
        const pixel = Math.floor(v) * width + Math.floor(u);
        const alpha = view.image[4 * pixel + 3];
        const seenSurface = alpha >= options.alphaMin;
        const d = !seenSurface ? 0 : options.depthMode === 'expected' ? view.depth[pixel] / alpha : view.depth[pixel];
        const imageAlpha = view.imageAlpha?.[pixel];
        const background = alpha < options.carveAlpha || (imageAlpha !== undefined && imageAlpha < options.carveAlpha);
        if (Math.abs(alpha - options.carveAlpha) < 1e-6 || (imageAlpha !== undefined && Math.abs(imageAlpha - options.carveAlpha) < 1e-6)) ambiguous.add(index);
        if (seenSurface && Math.abs(d - pc[2] - options.carveDepth) < BOUNDARY * grid.truncation) ambiguous.add(index);
        if (background || (seenSurface && d - pc[2] > options.carveDepth)) state.freeVotes[index]++;
        let sdf: number;
        let observed = false;
        if (seenSurface) {
          sdf = d - pc[2];
          if (Math.abs(sdf + grid.truncation) < BOUNDARY * grid.truncation) ambiguous.add(index);
          if (sdf < -grid.truncation) continue;
          observed = true;
        } else {
          if (!options.carve) continue;
          sdf = grid.truncation;
        }
        const tsdf = Math.min(1, sdf / grid.truncation);
        if (observed && Math.abs(sdf / grid.truncation - 1) < BOUNDARY) ambiguous.add(index); // colour or not
        const w = state.weights[index];
        state.values[index] = (state.values[index] * w + tsdf) / (w + 1);
        state.weights[index] = w + 1;
        if (observed && tsdf < 1) {
          const old = state.colors[index];
          const n = old >>> 24;
          const prev = [old & 255, (old >>> 8) & 255, (old >>> 16) & 255];
          const mean = [0, 1, 2].map((c) => Math.round((prev[c] * n + Math.min(1, Math.max(0, view.image[4 * pixel + c] / alpha)) * 255) / (n + 1)));
          state.colors[index] = (mean[0] | (mean[1] << 8) | (mean[2] << 16) | (Math.min(n + 1, 255) << 24)) >>> 0;
        }
      }
    }
  }
}

/** The carve pass (tsdf_carve): points with at least `votes` free-space votes and a negative value become +1 (in place). */
export function carveReference(state: TsdfState, votes: number): void {
  for (let p = 0; p < state.values.length; p++) if (state.freeVotes[p] >= votes && state.values[p] < 0) state.values[p] = 1;
}

export interface VisibilityReferenceOptions {
  alphaMin: number;
  depthMode: 'expected' | 'direct';
  near: number;
  /** World units a vertex may lie behind the nearest surface its 3x3 pixels show and still be seen. */
  seenDepth: number;
  /** f32 values per pixel of `view.depth` (the first is the depth). */
  depthStride: number;
}

/**
 * The visibility count (tsdf_visibility) for one view: +1 to every vertex in front of the near
 * plane, inside the image, and at most seenDepth plus one pixel footprint (its depth over the
 * smaller focal) behind the nearest surface (alpha >= alphaMin) among the 3x3 pixels around its
 * projection (in place). Vertices whose outcome is a float32 question (projection at a pixel
 * edge, the near plane, the depth bound) go to `ambiguous`.
 */
export function visibilityReference(positions: Float32Array, seen: Float64Array, view: TsdfReferenceView, options: VisibilityReferenceOptions, ambiguous: Set<number>): void {
  const { width, height, fx, fy } = view.camera;
  for (let vertex = 0; vertex < seen.length; vertex++) {
    const at = viewPoint(view.camera, [positions[3 * vertex], positions[3 * vertex + 1], positions[3 * vertex + 2]], options.near, () => ambiguous.add(vertex));
    if (!at) continue;
    const { pc, u, v } = at;
    let nearest = Infinity;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const qx = Math.floor(u) + dx;
        const qy = Math.floor(v) + dy;
        if (qx < 0 || qy < 0 || qx >= width || qy >= height) continue;
        const pixel = qy * width + qx;
        const alpha = view.image[4 * pixel + 3];
        if (alpha < options.alphaMin) continue;
        const d = view.depth[pixel * options.depthStride];
        nearest = Math.min(nearest, options.depthMode === 'expected' ? d / alpha : d);
      }
    }
    if (!Number.isFinite(nearest)) continue;
    const bound = nearest + options.seenDepth + pc[2] / Math.min(fx, fy); // plus one pixel footprint at the vertex's depth
    if (Math.abs(pc[2] - bound) < 1e-4 * Math.max(1, bound)) ambiguous.add(vertex);
    if (pc[2] <= bound) seen[vertex]++;
  }
}
