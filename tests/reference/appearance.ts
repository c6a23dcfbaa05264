/**
 * Float64 reference of the per-image colour model (kernels/appearance.wgsl): a bilateral grid of
 * 3x4 colour matrices over (x, y, luminance) sliced trilinearly as grid_sample(align_corners=True,
 * padding_mode='border'), out = A[:, :3] rgb + A[:, 3]; its gradients to the rendered image
 * (through the matrix and the luminance slice coordinate) and to the grid; gsplat's total
 * variation of the grids. A grid of 1 x 1 x 1 nodes is the 'affine' model. Tests only.
 */
import type { GridShape } from '../../main/engine/train/appearance.js';

const LUMA = [0.299, 0.587, 0.114];

interface Axis {
  i0: number;
  i1: number;
  f: number;
}

function axis(coordinate: number, nodes: number): Axis {
  if (nodes === 1) return { i0: 0, i1: 0, f: 0 };
  const c = Math.min(nodes - 1, Math.max(0, coordinate));
  const i0 = Math.min(Math.floor(c), nodes - 2);
  return { i0, i1: i0 + 1, f: c - i0 };
}

export function luminance(image: ArrayLike<number>, q: number): number {
  return LUMA[0] * image[3 * q] + LUMA[1] * image[3 * q + 1] + LUMA[2] * image[3 * q + 2];
}

/** The eight (node float offset, weight) pairs of a pixel's slice, and the l axis. */
function corners(shape: GridShape, slot: number, width: number, height: number, px: number, py: number, lum: number) {
  const ax = axis(((px + 0.5) / width) * (shape.x - 1), shape.x);
  const ay = axis(((py + 0.5) / height) * (shape.y - 1), shape.y);
  const az = axis(Math.min(1, Math.max(0, lum)) * (shape.l - 1), shape.l);
  const out: { offset: number; weight: number; xy: number; high: boolean }[] = [];
  for (const [ix, wx] of [[ax.i0, 1 - ax.f], [ax.i1, ax.f]])
    for (const [iy, wy] of [[ay.i0, 1 - ay.f], [ay.i1, ay.f]])
      for (const [iz, wz, high] of [[az.i0, 1 - az.f, false], [az.i1, az.f, true]] as const) {
        const offset = (((slot * shape.l + iz) * shape.y + iy) * shape.x + ix) * 12;
        out.push({ offset, weight: wx * wy * wz, xy: wx * wy, high });
      }
  return out;
}

/** The sliced 3x4 matrix (row-major) of a pixel, and its derivative along the l node axis. */
function slice(grids: ArrayLike<number>, shape: GridShape, slot: number, width: number, height: number, px: number, py: number, lum: number) {
  const a = new Float64Array(12);
  const dz = new Float64Array(12);
  for (const c of corners(shape, slot, width, height, px, py, lum)) {
    for (let k = 0; k < 12; k++) {
      a[k] += c.weight * grids[c.offset + k];
      dz[k] += (c.high ? c.xy : -c.xy) * grids[c.offset + k];
    }
  }
  return { a, dz };
}

/** image: H*W*3 rendered colours; grids: every image's; returns the corrected H*W*3. */
export function appearanceForwardReference(image: ArrayLike<number>, width: number, height: number, grids: ArrayLike<number>, shape: GridShape, slot: number): Float64Array {
  const out = new Float64Array(width * height * 3);
  for (let py = 0; py < height; py++)
    for (let px = 0; px < width; px++) {
      const q = py * width + px;
      const { a } = slice(grids, shape, slot, width, height, px, py, luminance(image, q));
      for (let r = 0; r < 3; r++) out[3 * q + r] = a[4 * r] * image[3 * q] + a[4 * r + 1] * image[3 * q + 1] + a[4 * r + 2] * image[3 * q + 2] + a[4 * r + 3];
    }
  return out;
}

/** dL/d image (H*W*3) and dL/d grids (photometric part: only `slot`'s grid) for dL/d out `vOut`. */
export function appearanceBackwardReference(image: ArrayLike<number>, vOut: ArrayLike<number>, width: number, height: number, grids: ArrayLike<number>, shape: GridShape, slot: number): { vImage: Float64Array; vImageThroughMatrix: Float64Array; vGrids: Float64Array } {
  const vImage = new Float64Array(width * height * 3);
  /** The part of vImage through the sliced matrix alone (without the luminance coordinate's). */
  const vImageThroughMatrix = new Float64Array(width * height * 3);
  const vGrids = new Float64Array(grids.length);
  for (let py = 0; py < height; py++)
    for (let px = 0; px < width; px++) {
      const q = py * width + px;
      const lum = luminance(image, q);
      const x = [image[3 * q], image[3 * q + 1], image[3 * q + 2], 1];
      const g = [vOut[3 * q], vOut[3 * q + 1], vOut[3 * q + 2]];
      const { a, dz } = slice(grids, shape, slot, width, height, px, py, lum);
      for (let k = 0; k < 3; k++) vImage[3 * q + k] = vImageThroughMatrix[3 * q + k] = g[0] * a[k] + g[1] * a[4 + k] + g[2] * a[8 + k];
      if (shape.l > 1 && lum > 0 && lum < 1) {
        let dLum = 0;
        for (let r = 0; r < 3; r++) dLum += g[r] * (dz[4 * r] * x[0] + dz[4 * r + 1] * x[1] + dz[4 * r + 2] * x[2] + dz[4 * r + 3]);
        dLum *= shape.l - 1;
        for (let k = 0; k < 3; k++) vImage[3 * q + k] += dLum * LUMA[k];
      }
      for (const c of corners(shape, slot, width, height, px, py, lum)) {
        for (let r = 0; r < 3; r++) for (let k = 0; k < 4; k++) vGrids[c.offset + 4 * r + k] += c.weight * g[r] * x[k];
      }
    }
  return { vImage, vImageThroughMatrix, vGrids };
}

/**
 * weight x gsplat's total_variation_loss over grids of shape (images, 12, l, y, x): per axis the
 * sum of squared neighbour differences over the count of differences, summed, / images.
 */
export function tvReference(grids: ArrayLike<number>, shape: GridShape, images: number, weight: number): { value: number; grad: Float64Array } {
  const grad = new Float64Array(grids.length);
  let value = 0;
  const strides = { x: 12, y: 12 * shape.x, l: 12 * shape.x * shape.y };
  for (const along of ['x', 'y', 'l'] as const) {
    const n = shape[along];
    if (n === 1) continue;
    const count = (12 * shape.x * shape.y * shape.l * (n - 1)) / n;
    const scale = weight / (count * images);
    const s = strides[along];
    for (let i = 0; i < grids.length; i++) {
      const cell = Math.floor(i / 12);
      const coordinate = along === 'x' ? cell % shape.x : along === 'y' ? Math.floor(cell / shape.x) % shape.y : Math.floor(cell / (shape.x * shape.y)) % shape.l;
      if (coordinate + 1 >= n) continue;
      const d = grids[i + s] - grids[i];
      value += scale * d * d;
      grad[i + s] += 2 * scale * d;
      grad[i] -= 2 * scale * d;
    }
  }
  return { value, grad };
}
