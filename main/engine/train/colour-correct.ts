/**
 * Colour-corrected PSNR (gsplat's `color_correct` idea): before scoring a held-out view, fit the
 * affine colour transform (3x4, least squares in float64) that maps the render closest to the
 * ground truth, and score the corrected render, clamped to [0, 1] as the render is. A model
 * trained with per-image appearance compensation renders a held-out view with no colour model of
 * its own, so its plain PSNR also counts the test image's exposure; this one does not.
 */
import { readBuffer } from '../gpu/buffers.js';

/** Rows of the 3x4 matrix A (row-major) minimising sum |A [x, 1] - y|^2 over the pixels. */
export function fitAffineColour(render: ArrayLike<number>, renderStride: number, target: ArrayLike<number>, targetStride: number, pixels: number): Float64Array {
  // normal equations: M a_r = b_r with M = sum x~ x~^T (x~ = [r, g, b, 1]), b_r = sum x~ y_r
  const m = new Float64Array(16);
  const b = new Float64Array(12);
  const x = new Float64Array(4);
  x[3] = 1;
  for (let p = 0; p < pixels; p++) {
    for (let k = 0; k < 3; k++) x[k] = render[p * renderStride + k];
    for (let i = 0; i < 4; i++) {
      for (let j = i; j < 4; j++) m[4 * i + j] += x[i] * x[j];
      for (let r = 0; r < 3; r++) b[4 * r + i] += x[i] * target[p * targetStride + r];
    }
  }
  for (let i = 0; i < 4; i++) for (let j = 0; j < i; j++) m[4 * i + j] = m[4 * j + i];
  // A tiny ridge keeps a flat render (a singular M) solvable; it moves no well-posed fit measurably.
  const ridge = 1e-12 * (m[0] + m[5] + m[10] + m[15]) + 1e-300;
  for (let i = 0; i < 4; i++) m[5 * i] += ridge;
  const a = new Float64Array(12);
  for (let r = 0; r < 3; r++) a.set(solve4(m, b.subarray(4 * r, 4 * r + 4)), 4 * r);
  return a;
}

/** Solves the 4x4 system M z = v by Gaussian elimination with partial pivoting. */
function solve4(matrix: Float64Array, v: ArrayLike<number>): Float64Array {
  const a = Float64Array.from(matrix);
  const z = Float64Array.from(v);
  for (let col = 0; col < 4; col++) {
    let pivot = col;
    for (let row = col + 1; row < 4; row++) if (Math.abs(a[4 * row + col]) > Math.abs(a[4 * pivot + col])) pivot = row;
    if (pivot !== col) {
      for (let k = 0; k < 4; k++) [a[4 * col + k], a[4 * pivot + k]] = [a[4 * pivot + k], a[4 * col + k]];
      [z[col], z[pivot]] = [z[pivot], z[col]];
    }
    const d = a[5 * col];
    for (let row = col + 1; row < 4; row++) {
      const f = a[4 * row + col] / d;
      for (let k = col; k < 4; k++) a[4 * row + k] -= f * a[4 * col + k];
      z[row] -= f * z[col];
    }
  }
  for (let row = 3; row >= 0; row--) {
    let s = z[row];
    for (let k = row + 1; k < 4; k++) s -= a[4 * row + k] * z[k];
    z[row] = s / a[5 * row];
  }
  return z;
}

/**
 * PSNR (dB) of `render` after the best affine colour fit to `target`, the corrected values clamped
 * to [0, 1]. Both hold colours in [0, 1], channel k of pixel p at p * stride + k.
 */
export function colourCorrectedPsnr(render: ArrayLike<number>, renderStride: number, target: ArrayLike<number>, targetStride: number, pixels: number): number {
  const a = fitAffineColour(render, renderStride, target, targetStride, pixels);
  let sq = 0;
  for (let p = 0; p < pixels; p++) {
    const r0 = render[p * renderStride];
    const r1 = render[p * renderStride + 1];
    const r2 = render[p * renderStride + 2];
    for (let r = 0; r < 3; r++) {
      const corrected = Math.min(1, Math.max(0, a[4 * r] * r0 + a[4 * r + 1] * r1 + a[4 * r + 2] * r2 + a[4 * r + 3]));
      const d = corrected - target[p * targetStride + r];
      sq += d * d;
    }
  }
  return -10 * Math.log10(Math.max(sq / (pixels * 3), 1e-20));
}

/**
 * Colour-corrected PSNR of an evaluation render on the GPU: `clamped` (vec4 per pixel) against
 * the RGBA8 target at `targetOffset` (pixels) of `targets`. Reads both back (evaluation only).
 */
export async function colourCorrectedPsnrOnGpu(device: GPUDevice, clamped: GPUBuffer, targets: GPUBuffer, targetOffset: number, pixels: number): Promise<number> {
  const render = new Float32Array(await readBuffer(device, clamped, pixels * 16));
  const bytes = new Uint8Array(await readBuffer(device, targets, pixels * 4, targetOffset * 4));
  const target = Float32Array.from(bytes, (v) => v / 255);
  return colourCorrectedPsnr(render, 4, target, 4, pixels);
}
