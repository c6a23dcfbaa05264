/**
 * Unit quaternions, the one implementation: the (x, y, z, w) order of the edit list, camera paths
 * and Babylon (products, log/exp in a rotation's local frame, slerp, rotating a vector, conversion
 * to and from row-major 3x3 matrices), and the (w, x, y, z) order of COLMAP's qvec and the splats'
 * rotations (the `wxyz*` functions). Every matrix rotates column vectors (v' = R v). Float64, plain
 * arrays.
 */

export type Quaternion = readonly [number, number, number, number];
export type Vector3 = readonly [number, number, number];

export function quatMultiply(a: Quaternion, b: Quaternion): [number, number, number, number] {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/** The inverse of a unit quaternion. */
export function quatConjugate(q: Quaternion): [number, number, number, number] {
  return [-q[0], -q[1], -q[2], q[3]];
}

export function quatDot(a: Quaternion, b: Quaternion): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

export function quatNormalize(q: Quaternion): [number, number, number, number] {
  const length = Math.hypot(q[0], q[1], q[2], q[3]);
  if (!(length > 0)) throw new Error('quatNormalize: a zero quaternion has no rotation');
  return [q[0] / length, q[1] / length, q[2] / length, q[3] / length];
}

/** `q` or `-q` (the same rotation), whichever is on `reference`'s side: interpolating then takes the shortest arc. */
export function quatNearest(q: Quaternion, reference: Quaternion): [number, number, number, number] {
  return quatDot(q, reference) < 0 ? [-q[0], -q[1], -q[2], -q[3]] : [q[0], q[1], q[2], q[3]];
}

/** log of a unit quaternion: the pure vector v with q = exp(v) (half the rotation vector). */
export function quatLog(q: Quaternion): [number, number, number] {
  const vectorLength = Math.hypot(q[0], q[1], q[2]);
  const halfAngle = Math.atan2(vectorLength, q[3]);
  // sin(x)/x -> 1 as the rotation vanishes; the series keeps full precision there.
  const scale = vectorLength > 1e-8 ? halfAngle / vectorLength : 1 / q[3];
  return [q[0] * scale, q[1] * scale, q[2] * scale];
}

export function quatExp(v: Vector3): [number, number, number, number] {
  const halfAngle = Math.hypot(v[0], v[1], v[2]);
  const scale = halfAngle > 1e-8 ? Math.sin(halfAngle) / halfAngle : 1 - (halfAngle * halfAngle) / 6;
  return [v[0] * scale, v[1] * scale, v[2] * scale, Math.cos(halfAngle)];
}

/** log(a^-1 b): the step from `a` to `b` in `a`'s local frame. */
export function quatLogBetween(a: Quaternion, b: Quaternion): [number, number, number] {
  return quatLog(quatMultiply(quatConjugate(a), b));
}

/** a * exp(v): `a` moved by the local step `v`. */
export function quatStep(a: Quaternion, v: Vector3): [number, number, number, number] {
  return quatNormalize(quatMultiply(a, quatExp(v)));
}

/** Spherical linear interpolation along the arc from `a` to `b` as given (callers pick signs: see quatNearest). */
export function quatSlerp(a: Quaternion, b: Quaternion, u: number): [number, number, number, number] {
  const step = quatLogBetween(a, b);
  return quatStep(a, [step[0] * u, step[1] * u, step[2] * u]);
}

/** Row-major 3x3 rotation matrix of a unit quaternion (it rotates column vectors: v' = R v). */
export function quatToMatrix(q: Quaternion): number[] {
  const [x, y, z, w] = q;
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
    2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
    2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
  ];
}

/** Unit quaternion (x, y, z, w) of a row-major 3x3 rotation matrix, w >= 0 (wxyzFromMatrix reordered). */
export function quatFromMatrix(m: ArrayLike<number>): [number, number, number, number] {
  const [w, x, y, z] = wxyzFromMatrix(m);
  return [x, y, z, w];
}

/** R v for a unit quaternion (x, y, z, w), without building R. */
export function quatRotate(q: Quaternion, v: Vector3): [number, number, number] {
  const [x, y, z, w] = q;
  // v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z)
  const cx = y * v[2] - z * v[1];
  const cy = z * v[0] - x * v[2];
  const cz = x * v[1] - y * v[0];
  return [
    v[0] + 2 * (w * cx + (y * cz - z * cy)),
    v[1] + 2 * (w * cy + (z * cx - x * cz)),
    v[2] + 2 * (w * cz + (x * cy - y * cx)),
  ];
}

// (w, x, y, z): COLMAP's qvec and the splats' rotations (shared/scene/splats.ts).

/** (x, y, z, w) -> (w, x, y, z). */
export function toWxyz(q: Quaternion): [number, number, number, number] {
  return [q[3], q[0], q[1], q[2]];
}

/** (w, x, y, z) -> (x, y, z, w). */
export function fromWxyz(q: readonly number[]): [number, number, number, number] {
  return [q[1], q[2], q[3], q[0]];
}

/** Hamilton product a * b of (w, x, y, z) quaternions: rotating by b, then by a. */
export function wxyzMultiply(a: readonly number[], b: readonly number[]): [number, number, number, number] {
  const [aw, ax, ay, az] = a;
  const [bw, bx, by, bz] = b;
  return [
    aw * bw - ax * bx - ay * by - az * bz,
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
  ];
}

/** Row-major 3x3 rotation matrix of a unit (w, x, y, z) quaternion (not normalized here). */
export function wxyzToMatrix(q: readonly number[]): number[] {
  const [w, x, y, z] = q;
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  ];
}

/**
 * Unit (w, x, y, z) quaternion of a row-major 3x3 rotation, w >= 0 (COLMAP's convention):
 * Shepperd's method, branching on the largest of the trace and the diagonal so that no square
 * root of a small number is taken.
 */
export function wxyzFromMatrix(m: ArrayLike<number>): [number, number, number, number] {
  const [r00, r01, r02, r10, r11, r12, r20, r21, r22] = [m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]];
  const trace = r00 + r11 + r22;
  let q: [number, number, number, number];
  if (trace > r00 && trace > r11 && trace > r22) {
    const s = 2 * Math.sqrt(1 + trace);
    q = [s / 4, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s];
  } else if (r00 > r11 && r00 > r22) {
    const s = 2 * Math.sqrt(1 + r00 - r11 - r22);
    q = [(r21 - r12) / s, s / 4, (r01 + r10) / s, (r02 + r20) / s];
  } else if (r11 > r22) {
    const s = 2 * Math.sqrt(1 + r11 - r00 - r22);
    q = [(r02 - r20) / s, (r01 + r10) / s, s / 4, (r12 + r21) / s];
  } else {
    const s = 2 * Math.sqrt(1 + r22 - r00 - r11);
    q = [(r10 - r01) / s, (r02 + r20) / s, (r12 + r21) / s, s / 4];
  }
  const n = Math.hypot(...q) * (q[0] < 0 ? -1 : 1);
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}
