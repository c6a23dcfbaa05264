/**
 * Unit quaternions (x, y, z, w) for camera rotations: the few operations camera paths need
 * (products, log/exp in a rotation's local frame, slerp, conversion to and from row-major 3x3
 * matrices). Float64, plain arrays, no allocation tricks: paths have at most thousands of keys.
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

/** Unit quaternion of a row-major 3x3 rotation matrix (Shepperd's method: the largest diagonal term keeps it stable). */
export function quatFromMatrix(m: readonly number[]): [number, number, number, number] {
  const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = m;
  const trace = m00 + m11 + m22;
  let q: [number, number, number, number];
  if (trace > 0) {
    const s = 2 * Math.sqrt(trace + 1);
    q = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4];
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    q = [s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    q = [(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    q = [(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s];
  }
  return quatNormalize(q);
}
