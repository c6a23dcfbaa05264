/**
 * Splitting a posed scene into blocks on its ground plane (docs/scale.md). The cores tile the
 * footprint of the SfM points (a grid of equal cells, or balanced k-d splits by point count), so
 * every point lies in exactly one core (`coreIndexOf`: half-open cells, the outer edges open to
 * infinity, so splats trained past the points' extent still belong to one block). A block's
 * bounds are its core grown by the overlap on every side; its cameras the training views that see
 * its bounds (visibility.ts); its points the SfM points inside its bounds.
 */
import type { GroundFrame, GroundRect, Partition, PartitionBlock } from '../../../shared/project/partition.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { groundFrame, toGround } from './ground.js';
import { camerasSeeingBlocks, DEFAULT_VISIBILITY, pointsInRect, type VisibilityThresholds } from './visibility.js';

export interface SplitCamera {
  name: string;
  camera: PinholeCamera;
}

export interface SplitInput {
  /** The training views to choose block cameras from. */
  cameras: readonly SplitCamera[];
  /** SfM points, xyz triples. */
  points: ArrayLike<number>;
  /** What errors name (the project file or the dataset). */
  source?: string;
}

export interface SplitOptions {
  /** A block count, or */
  blocks?: number;
  /** a block size (ground units; the core's longer side at most this). */
  blockSize?: number;
  method: 'grid' | 'kd';
  /** Fraction of a core's size added on every side. */
  overlap: number;
  visibility?: VisibilityThresholds;
  id?: string;
  createdAt?: string;
  /** The frame to split in (default: groundFrame of the cameras and points). */
  ground?: GroundFrame;
}

const rect = (minU: number, minV: number, maxU: number, maxV: number): GroundRect => ({ min: [minU, minV], max: [maxU, maxV] });

/** The rectangle all cores tile: the cores' union. */
export function outerRect(cores: readonly GroundRect[]): GroundRect {
  return rect(Math.min(...cores.map((c) => c.min[0])), Math.min(...cores.map((c) => c.min[1])), Math.max(...cores.map((c) => c.max[0])), Math.max(...cores.map((c) => c.max[1])));
}

/**
 * The core a ground point belongs to: cells are [min, max) on both axes, and a core's sides on
 * the outer rectangle's edges reach to infinity. -1 only for cores that do not tile a rectangle.
 */
export function coreIndexOf(cores: readonly GroundRect[], outer: GroundRect, u: number, v: number): number {
  for (let i = 0; i < cores.length; i++) {
    const c = cores[i]!;
    const uIn = (u >= c.min[0] || c.min[0] <= outer.min[0]) && (u < c.max[0] || c.max[0] >= outer.max[0]);
    const vIn = (v >= c.min[1] || c.min[1] <= outer.min[1]) && (v < c.max[1] || c.max[1] >= outer.max[1]);
    if (uIn && vIn) return i;
  }
  return -1;
}

function checkOptions(source: string, input: SplitInput, options: SplitOptions): void {
  const { blocks, blockSize, overlap } = options;
  if ((blocks === undefined) === (blockSize === undefined)) throw badInput(source, 'give either a block count (--blocks N) or a block size (--block-size S), not both or neither');
  if (blocks !== undefined && !(Number.isInteger(blocks) && blocks >= 1)) throw badInput(source, `the block count must be a whole number >= 1 (got ${blocks})`);
  if (blockSize !== undefined && !(Number.isFinite(blockSize) && blockSize > 0)) throw badInput(source, `the block size must be a positive number of ground units (got ${blockSize})`);
  if (!(Number.isFinite(overlap) && overlap >= 0 && overlap <= 1)) throw badInput(source, `the overlap must be a fraction in [0, 1] (got ${overlap})`);
  if (options.method !== 'grid' && options.method !== 'kd') throw badInput(source, `unknown split method '${String(options.method)}' (grid or kd)`);
  const pointCount = Math.floor(input.points.length / 3);
  if (pointCount === 0) throw badInput(source, 'the scene has no SfM points to split (partitioning needs a dataset with points, e.g. a COLMAP model or a capture)');
  for (let i = 0; i < pointCount * 3; i++) if (!Number.isFinite(input.points[i])) throw badInput(source, `SfM point ${Math.floor(i / 3)} has a non-finite coordinate (${input.points[i]})`);
  if (blocks !== undefined && blocks > pointCount) throw badInput(source, `${blocks} blocks for ${pointCount} SfM points: every block needs points; ask for at most ${pointCount}`);
  if (!input.cameras.length) throw badInput(source, 'the scene has no training cameras');
  for (const { name, camera } of input.cameras) {
    const numbers = [camera.fx, camera.fy, camera.cx, camera.cy, camera.width, camera.height, ...camera.worldToCamera];
    if (!numbers.every(Number.isFinite) || !(camera.width > 0 && camera.height > 0)) throw badInput(source, `camera ${name} has a non-finite or empty pose or intrinsics`);
  }
}

/** A grid of nx x ny equal cells over `outer`, row by row (v then u). */
function gridCores(outer: GroundRect, nx: number, ny: number): GroundRect[] {
  const w = (outer.max[0] - outer.min[0]) / nx;
  const h = (outer.max[1] - outer.min[1]) / ny;
  const edgeU = (i: number) => (i === nx ? outer.max[0] : outer.min[0] + i * w);
  const edgeV = (j: number) => (j === ny ? outer.max[1] : outer.min[1] + j * h);
  const cores: GroundRect[] = [];
  for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) cores.push(rect(edgeU(i), edgeV(j), edgeU(i + 1), edgeV(j + 1)));
  return cores;
}

/** The factor pair nx * ny = n whose cells are closest to square over a w x h footprint. */
function gridShape(n: number, w: number, h: number): [number, number] {
  let best: [number, number] = [n, 1];
  let bestScore = Infinity;
  for (let nx = 1; nx <= n; nx++) {
    if (n % nx) continue;
    const ny = n / nx;
    const score = Math.abs(Math.log(w / nx / (h / ny)));
    if (score < bestScore) [best, bestScore] = [[nx, ny], score];
  }
  return best;
}

/**
 * Balanced k-d cores: the longer side of a cell is cut at the quantile of its points that gives
 * each side its share of the leaves (`leaves`), or, by size, in half (by count) until a cell's
 * longer side is at most `blockSize`.
 */
function kdCores(cell: GroundRect, uv: readonly [number, number][], target: { leaves: number } | { blockSize: number }): GroundRect[] {
  const width = cell.max[0] - cell.min[0];
  const height = cell.max[1] - cell.min[1];
  const done = 'leaves' in target ? target.leaves <= 1 : Math.max(width, height) <= target.blockSize || uv.length < 2;
  if (done) return [cell];
  const axis = width >= height ? 0 : 1;
  const leftLeaves = 'leaves' in target ? Math.floor(target.leaves / 2) : 1;
  const share = 'leaves' in target ? leftLeaves / target.leaves : 0.5;
  const coords = uv.map((p) => p[axis]).sort((a, b) => a - b);
  let cut = coords[Math.min(coords.length - 1, Math.round(coords.length * share))] ?? (cell.min[axis] + cell.max[axis]) / 2;
  // all points at one coordinate (or the cut on the cell's edge): cut the cell in the middle
  if (!(cut > cell.min[axis] && cut < cell.max[axis])) cut = cell.min[axis] + (cell.max[axis] - cell.min[axis]) * share;
  const left = axis === 0 ? rect(cell.min[0], cell.min[1], cut, cell.max[1]) : rect(cell.min[0], cell.min[1], cell.max[0], cut);
  const right = axis === 0 ? rect(cut, cell.min[1], cell.max[0], cell.max[1]) : rect(cell.min[0], cut, cell.max[0], cell.max[1]);
  const leftPoints = uv.filter((p) => p[axis] < cut);
  const rightPoints = uv.filter((p) => p[axis] >= cut);
  const sub = (leaves: number) => ('leaves' in target ? { leaves } : target);
  return [...kdCores(left, leftPoints, sub(leftLeaves)), ...kdCores(right, rightPoints, sub('leaves' in target ? target.leaves - leftLeaves : 1))];
}

export function blockId(index: number): string {
  return `block-${String(index + 1).padStart(2, '0')}`;
}

/** The core grown by `overlap` x its size on every side. */
export function grownRect(core: GroundRect, overlap: number): GroundRect {
  const du = (core.max[0] - core.min[0]) * overlap;
  const dv = (core.max[1] - core.min[1]) * overlap;
  return rect(core.min[0] - du, core.min[1] - dv, core.max[0] + du, core.max[1] + dv);
}

export function splitScene(input: SplitInput, options: SplitOptions): Partition {
  const source = input.source ?? 'scene';
  checkOptions(source, input, options);
  const ground = options.ground ?? groundFrame(input.cameras.map((c) => c.camera), input.points);
  const pointCount = Math.floor(input.points.length / 3);
  const uv: [number, number][] = [];
  for (let i = 0; i < pointCount; i++) {
    const [u, v] = toGround(ground, [input.points[3 * i]!, input.points[3 * i + 1]!, input.points[3 * i + 2]!]);
    uv.push([u, v]);
  }
  let outer = rect(Infinity, Infinity, -Infinity, -Infinity);
  for (const [u, v] of uv) outer = rect(Math.min(outer.min[0], u), Math.min(outer.min[1], v), Math.max(outer.max[0], u), Math.max(outer.max[1], v));
  // a footprint flat along an axis (points on a line) still needs a width to cut
  const extent = Math.max(outer.max[0] - outer.min[0], outer.max[1] - outer.min[1], 1e-9);
  for (const a of [0, 1] as const) {
    if (outer.max[a] - outer.min[a] < extent * 1e-6) {
      const min: [number, number] = [...outer.min];
      const max: [number, number] = [...outer.max];
      min[a] -= extent * 1e-6;
      max[a] += extent * 1e-6;
      outer = { min, max };
    }
  }
  const width = outer.max[0] - outer.min[0];
  const height = outer.max[1] - outer.min[1];
  let cores: GroundRect[];
  if (options.method === 'grid') {
    const [nx, ny] = options.blocks !== undefined ? gridShape(options.blocks, width, height) : [Math.max(1, Math.ceil(width / options.blockSize!)), Math.max(1, Math.ceil(height / options.blockSize!))];
    cores = gridCores(outer, nx, ny);
  } else {
    cores = kdCores(outer, uv, options.blocks !== undefined ? { leaves: options.blocks } : { blockSize: options.blockSize! });
  }
  const coreCounts = new Array<number>(cores.length).fill(0);
  for (const [u, v] of uv) coreCounts[coreIndexOf(cores, outer, u, v)]!++;
  const visibility = options.visibility ?? DEFAULT_VISIBILITY;
  const fewer = `ask for fewer blocks (${cores.length > 2 ? `--blocks ${cores.length - 1}` : 'one block'})${options.method === 'grid' ? ' or --method kd' : ''}`;
  const regions = cores.map((core, index) => {
    if (coreCounts[index] === 0) throw badInput(source, `${blockId(index)} (core u ${core.min[0].toFixed(2)}..${core.max[0].toFixed(2)}, v ${core.min[1].toFixed(2)}..${core.max[1].toFixed(2)}) holds no SfM points: ${fewer}`, { block: blockId(index) });
    const bounds = grownRect(core, options.overlap);
    const inside = pointsInRect(ground, bounds, input.points);
    return { core, bounds, height: inside.height, points: inside.indices.length };
  });
  const seeing = camerasSeeingBlocks(ground, regions, input.points, input.cameras.map((c) => c.camera), visibility);
  const blocks: PartitionBlock[] = regions.map((region, index) => {
    const id = blockId(index);
    const cameras = seeing[index]!.map((c) => input.cameras[c]!.name);
    if (!cameras.length) throw badInput(source, `${id} is seen by no camera (none has ${Math.round(visibility.minShare * 100)}% of its view in the block, or ${Math.round(visibility.minVisibleFraction * 100)}% of the block in view): ${fewer}`, { block: id });
    return { id, ...region, cameras };
  });
  return {
    id: options.id ?? 'partition-001',
    createdAt: options.createdAt ?? new Date().toISOString(),
    method: options.method,
    target: options.blocks !== undefined ? { blocks: options.blocks } : { blockSize: options.blockSize! },
    overlap: options.overlap,
    ground,
    blocks,
  };
}
