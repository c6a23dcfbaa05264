/**
 * Fixed-size dense helpers for bundle adjustment's blocks (3x3 points, 6x6 poses, kxk intrinsics
 * with k <= 8), float64 on flat row-major arrays at offsets: the hot loops run them per point and
 * per image, so no matrix objects.
 */

/**
 * Inverts the symmetric positive definite n x n block a[aOffset..] into out[outOffset..] by
 * Cholesky (a = L L^T, then L^-T L^-1). Returns false, leaving out zero, when a pivot is not
 * positive (the block is singular or indefinite).
 */
export function invertSymmetricPositive(a: Float64Array, aOffset: number, n: number, out: Float64Array, outOffset: number, scratch = new Float64Array(2 * n * n)): boolean {
  const l = scratch.subarray(0, n * n);
  const inverseL = scratch.subarray(n * n, 2 * n * n);
  l.fill(0);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c <= r; c++) {
      let sum = a[aOffset + r * n + c];
      for (let k = 0; k < c; k++) sum -= l[r * n + k] * l[c * n + k];
      if (r === c) {
        if (!(sum > 0)) {
          out.fill(0, outOffset, outOffset + n * n);
          return false;
        }
        l[r * n + r] = Math.sqrt(sum);
      } else {
        l[r * n + c] = sum / l[c * n + c];
      }
    }
  }
  // L^-1 by forward substitution, column by column.
  inverseL.fill(0);
  for (let c = 0; c < n; c++) {
    inverseL[c * n + c] = 1 / l[c * n + c];
    for (let r = c + 1; r < n; r++) {
      let sum = 0;
      for (let k = c; k < r; k++) sum -= l[r * n + k] * inverseL[k * n + c];
      inverseL[r * n + c] = sum / l[r * n + r];
    }
  }
  // a^-1 = L^-T L^-1.
  for (let r = 0; r < n; r++) {
    for (let c = 0; c <= r; c++) {
      let sum = 0;
      for (let k = r; k < n; k++) sum += inverseL[k * n + r] * inverseL[k * n + c];
      out[outOffset + r * n + c] = sum;
      out[outOffset + c * n + r] = sum;
    }
  }
  return true;
}

/** out[0..n) = a (n x n at aOffset) x[xOffset..xOffset + n). */
export function multiplyBlock(a: Float64Array, aOffset: number, n: number, x: ArrayLike<number>, xOffset: number, out: Float64Array, outOffset: number): void {
  for (let r = 0; r < n; r++) {
    let sum = 0;
    for (let c = 0; c < n; c++) sum += a[aOffset + r * n + c] * x[xOffset + c];
    out[outOffset + r] = sum;
  }
}

export function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum += a[k] * b[k];
  return sum;
}
