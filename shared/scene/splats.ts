/**
 * The 3DGS parameterization on the host, structure-of-arrays like on the GPU.
 *
 * - means: xyz world positions, 3 per splat
 * - logScales: log of the per-axis standard deviations, 3 per splat
 * - quats: rotation as a quaternion (w, x, y, z), 4 per splat; normalized where used
 * - opacityLogits: logit of the opacity, 1 per splat
 * - sh: spherical-harmonics coefficients, layout [splat][coefficient k][channel c]:
 *   index (i * K + k) * 3 + c, K = (shDegree + 1)^2; k = 0 is the DC term.
 *   Colour = 0.5 + SH(dir) (3DGS convention), clamped at 0 from below.
 */
export interface SplatSet {
  count: number;
  shDegree: number;
  means: Float32Array;
  logScales: Float32Array;
  quats: Float32Array;
  opacityLogits: Float32Array;
  sh: Float32Array;
}

export const SH_C0 = 0.28209479177387814;

export function shCoefficientCount(degree: number): number {
  return (degree + 1) * (degree + 1);
}

export function emptySplats(count: number, shDegree: number): SplatSet {
  const K = shCoefficientCount(shDegree);
  return {
    count,
    shDegree,
    means: new Float32Array(count * 3),
    logScales: new Float32Array(count * 3),
    quats: new Float32Array(count * 4),
    opacityLogits: new Float32Array(count),
    sh: new Float32Array(count * K * 3),
  };
}
