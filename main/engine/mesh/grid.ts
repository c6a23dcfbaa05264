/**
 * The voxel grid a mesh is extracted on: where it sits, how fine it is, how it is cut into slabs
 * (bounded dispatches), and how its bounds follow from the splats.
 */
import type { SplatSet } from '../../../shared/scene/splats.js';

export type Vec3 = [number, number, number];

export interface VoxelGrid {
  /** World position of grid point (0, 0, 0). */
  origin: Vec3;
  /** Distance between neighbouring grid points (world units). */
  voxelSize: number;
  /** Grid points along x, y, z (cells: one fewer). Point (i, j, k) has index i + nx (j + ny k). */
  dims: Vec3;
  /** Truncation distance of the signed distance (world units). */
  truncation: number;
}

export interface Bounds {
  min: Vec3;
  max: Vec3;
}

/**
 * A grid over `bounds` with `resolution` voxels along the longest axis, padded by the truncation
 * plus one voxel on every side so the surface near the box's faces still has both signs around it.
 */
export function gridForBounds(bounds: Bounds, resolution: number, truncationVoxels: number): VoxelGrid {
  if (!Number.isInteger(resolution) || resolution < 2) throw new Error(`mesh resolution must be an integer >= 2, got ${resolution}`);
  if (!(truncationVoxels > 0)) throw new Error(`mesh truncation must be > 0 voxels, got ${truncationVoxels}`);
  const extent = [0, 1, 2].map((a) => bounds.max[a] - bounds.min[a]);
  const longest = Math.max(...extent);
  if (!(longest > 0) || !extent.every(Number.isFinite)) throw new Error(`mesh bounds are empty or not finite: ${JSON.stringify(bounds)}`);
  const voxelSize = longest / resolution;
  const pad = Math.ceil(truncationVoxels) + 1;
  const dims = extent.map((e) => Math.max(2, Math.ceil(e / voxelSize) + 1 + 2 * pad)) as Vec3;
  const origin = [0, 1, 2].map((a) => bounds.min[a] - pad * voxelSize) as Vec3;
  return { origin, voxelSize, dims, truncation: truncationVoxels * voxelSize };
}

export function pointCount(grid: VoxelGrid): number {
  return grid.dims[0] * grid.dims[1] * grid.dims[2];
}

/** Slabs of z-layers, each at most `maxPerSlab` items (points or cells) of `perLayer` each. */
export function slabsOf(layers: number, perLayer: number, maxPerSlab: number): { z0: number; layers: number }[] {
  const step = Math.max(1, Math.floor(maxPerSlab / Math.max(1, perLayer)));
  const slabs = [];
  for (let z0 = 0; z0 < layers; z0 += step) slabs.push({ z0, layers: Math.min(step, layers - z0) });
  return slabs;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Robust bounds of the splats' centres: per axis the [lower, 1 - lower] quantiles of the splats
 * with opacity >= minOpacity (floaters and stray transparent splats do not stretch the box), then
 * widened by `margin` of the extent on each side.
 */
export function splatBounds(splats: SplatSet, options: { lower?: number; minOpacity?: number; margin?: number } = {}): Bounds {
  const lower = options.lower ?? 0.005;
  const minOpacity = options.minOpacity ?? 0.1;
  const margin = options.margin ?? 0.05;
  const kept: number[] = [];
  for (let i = 0; i < splats.count; i++) if (sigmoid(splats.opacityLogits[i]) >= minOpacity) kept.push(i);
  const use = kept.length >= 8 ? kept : Array.from({ length: splats.count }, (_, i) => i);
  if (!use.length) throw new Error('mesh: no splats to take the bounds from');
  const min = [0, 0, 0] as Vec3;
  const max = [0, 0, 0] as Vec3;
  const axis = new Float64Array(use.length);
  for (let a = 0; a < 3; a++) {
    use.forEach((s, i) => (axis[i] = splats.means[3 * s + a]));
    axis.sort();
    const lo = axis[Math.floor(lower * (use.length - 1))];
    const hi = axis[Math.ceil((1 - lower) * (use.length - 1))];
    const pad = (hi - lo) * margin;
    min[a] = lo - pad;
    max[a] = hi + pad;
  }
  return { min, max };
}
