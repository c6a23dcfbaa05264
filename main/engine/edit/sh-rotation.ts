/**
 * Rotating real spherical harmonics (degrees 1-3, the 3DGS / gsplat basis and signs) with the
 * scene: a splat whose colour in direction d was c(d) has, after the scene turned by R, the colour
 * c'(d) = c(R^T d). Each band l is closed under rotation, so its 2l+1 coefficients map by one
 * (2l+1)x(2l+1) matrix per band.
 *
 * The matrices come from the basis itself rather than from Wigner-D recurrences: for fixed
 * directions d_j, Y_l(R^T d_j) = M Y_l(d_j) holds exactly, so M = B A^+ (A = the basis at d_j,
 * B = at R^T d_j, A^+ its pseudo-inverse, computed once), and the coefficients map by M^T. It
 * needs no sign conventions of its own: whatever the basis is, the rotation matches it.
 */
export const SH_ROTATION_MAX_DEGREE = 3;

const C0 = 0.28209479177387814;
const C1 = 0.4886025119029199;
const C2 = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396];
const C3 = [-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658, 1.445305721320277, -0.5900435899266435];

/** The (degree+1)^2 basis values at the unit direction (x, y, z), as the rasterizer evaluates them. */
export function shBasisValues(degree: number, x: number, y: number, z: number, out: Float64Array): void {
  out[0] = C0;
  if (degree < 1) return;
  out[1] = -C1 * y;
  out[2] = C1 * z;
  out[3] = -C1 * x;
  if (degree < 2) return;
  const xx = x * x, yy = y * y, zz = z * z;
  out[4] = C2[0] * x * y;
  out[5] = C2[1] * y * z;
  out[6] = C2[2] * (2 * zz - xx - yy);
  out[7] = C2[3] * x * z;
  out[8] = C2[4] * (xx - yy);
  if (degree < 3) return;
  out[9] = C3[0] * y * (3 * xx - yy);
  out[10] = C3[1] * x * y * z;
  out[11] = C3[2] * y * (4 * zz - xx - yy);
  out[12] = C3[3] * z * (2 * zz - 3 * xx - 3 * yy);
  out[13] = C3[4] * x * (4 * zz - xx - yy);
  out[14] = C3[5] * z * (xx - yy);
  out[15] = C3[6] * x * (xx - 3 * yy);
}

/** Well-spread unit directions (a Fibonacci sphere): enough, and generic enough, for every band up to 3. */
const SAMPLE_DIRECTIONS: readonly [number, number, number][] = Array.from({ length: 32 }, (_, j) => {
  const z = 1 - (2 * j + 1) / 32;
  const r = Math.sqrt(1 - z * z);
  const phi = j * Math.PI * (3 - Math.sqrt(5));
  return [r * Math.cos(phi), r * Math.sin(phi), z];
});

/** Inverse of a small square matrix (row-major, n x n) by Gauss-Jordan with partial pivoting. */
function invert(matrix: Float64Array, n: number): Float64Array {
  const a = Float64Array.from(matrix);
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) inv[i * n + i] = 1;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r * n + col]) > Math.abs(a[pivot * n + col])) pivot = r;
    if (Math.abs(a[pivot * n + col]) < 1e-12) throw new Error('sh-rotation: singular sample matrix (the sample directions are degenerate)');
    for (let c = 0; c < n; c++) {
      [a[col * n + c], a[pivot * n + c]] = [a[pivot * n + c], a[col * n + c]];
      [inv[col * n + c], inv[pivot * n + c]] = [inv[pivot * n + c], inv[col * n + c]];
    }
    const p = a[col * n + col];
    for (let c = 0; c < n; c++) {
      a[col * n + c] /= p;
      inv[col * n + c] /= p;
    }
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = a[r * n + col];
      if (f === 0) continue;
      for (let c = 0; c < n; c++) {
        a[r * n + c] -= f * a[col * n + c];
        inv[r * n + c] -= f * inv[col * n + c];
      }
    }
  }
  return inv;
}

/** Band l's basis at every sample direction, as an n x J matrix (n = 2l+1). */
function bandSamples(l: number, direction: (d: readonly [number, number, number]) => [number, number, number]): Float64Array {
  const n = 2 * l + 1;
  const J = SAMPLE_DIRECTIONS.length;
  const values = new Float64Array(16);
  const out = new Float64Array(n * J);
  SAMPLE_DIRECTIONS.forEach((d, j) => {
    const [x, y, z] = direction(d);
    shBasisValues(l, x, y, z, values);
    for (let i = 0; i < n; i++) out[i * J + j] = values[l * l + i];
  });
  return out;
}

/** Per band, A^+ = A^T (A A^T)^-1 (J x n): fixed, so computed once. */
const PSEUDO_INVERSES: Float64Array[] = [];
function pseudoInverse(l: number): Float64Array {
  const cached = PSEUDO_INVERSES[l];
  if (cached) return cached;
  const n = 2 * l + 1;
  const J = SAMPLE_DIRECTIONS.length;
  const a = bandSamples(l, (d) => [d[0], d[1], d[2]]);
  const gram = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) {
    let s = 0;
    for (let j = 0; j < J; j++) s += a[i * J + j] * a[k * J + j];
    gram[i * n + k] = s;
  }
  const gramInv = invert(gram, n);
  const result = new Float64Array(J * n);
  for (let j = 0; j < J; j++) for (let k = 0; k < n; k++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += a[i * J + j] * gramInv[i * n + k];
    result[j * n + k] = s;
  }
  PSEUDO_INVERSES[l] = result;
  return result;
}

/**
 * For a rotation R (3x3, row-major), one matrix per band l = 1..degree (index l - 1; row-major,
 * (2l+1)^2): the band's new coefficients are D times its old ones.
 */
export function shRotationMatrices(rotation: ArrayLike<number>, degree: number): Float64Array[] {
  if (!(Number.isInteger(degree) && degree >= 0 && degree <= SH_ROTATION_MAX_DEGREE)) throw new Error(`sh-rotation: degree must be 0..${SH_ROTATION_MAX_DEGREE}, got ${degree}`);
  const R = rotation;
  // R^T d: the direction whose old colour a viewer now sees along d.
  const back = (d: readonly [number, number, number]): [number, number, number] => [
    R[0] * d[0] + R[3] * d[1] + R[6] * d[2],
    R[1] * d[0] + R[4] * d[1] + R[7] * d[2],
    R[2] * d[0] + R[5] * d[1] + R[8] * d[2],
  ];
  const matrices: Float64Array[] = [];
  const J = SAMPLE_DIRECTIONS.length;
  for (let l = 1; l <= degree; l++) {
    const n = 2 * l + 1;
    const b = bandSamples(l, back);
    const pinv = pseudoInverse(l);
    // M = B A^+ (n x n); D = M^T.
    const d = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) {
      let s = 0;
      for (let j = 0; j < J; j++) s += b[i * J + j] * pinv[j * n + k];
      d[k * n + i] = s;
    }
    matrices.push(d);
  }
  return matrices;
}

/**
 * Rotates the SH of `count` splats in place (layout [splat][coefficient k][channel c], K
 * coefficients each); the DC term (k = 0) does not change.
 */
export function rotateShInPlace(sh: Float32Array, count: number, degree: number, matrices: readonly Float64Array[]): void {
  const K = (degree + 1) * (degree + 1);
  const scratch = new Float64Array(7 * 3);
  for (let i = 0; i < count; i++) {
    const splat = i * K * 3;
    for (let l = 1; l <= degree; l++) {
      const n = 2 * l + 1;
      const d = matrices[l - 1];
      const band = splat + l * l * 3;
      // the band's n coefficients x 3 channels, contiguous ([k][c])
      for (let e = 0; e < n * 3; e++) scratch[e] = sh[band + e];
      for (let r = 0; r < n; r++) {
        let s0 = 0, s1 = 0, s2 = 0;
        for (let k = 0; k < n; k++) {
          const w = d[r * n + k];
          s0 += w * scratch[3 * k];
          s1 += w * scratch[3 * k + 1];
          s2 += w * scratch[3 * k + 2];
        }
        sh[band + 3 * r] = s0;
        sh[band + 3 * r + 1] = s1;
        sh[band + 3 * r + 2] = s2;
      }
    }
  }
}
