/**
 * Analytic backward of the projection stage (projection.ts): from dL/d(mean2d, conic, opacity,
 * colour, depth, normal) of each splat to dL/d of its parameters. It recomputes each splat's
 * forward intermediates with `projectSplat` and walks them in reverse:
 * colour -> SH coefficients and view direction -> means; opacity -> logit (and the
 * compensation); conic -> blurred cov2d -> cov2d (plus the compensation's determinants) ->
 * J and SigmaCam -> camera point and (R Rq S) -> scales and the normalized quaternion -> the raw
 * quaternion. Active clamps (colour at 0, x/z and y/z in J) pass no gradient.
 *
 * With `cameraGrad` (12 numbers, the layout of main/engine/render/camera-grads.ts) it also sums
 * dL/d(camera): for the local perturbation [R | t] -> Exp(omega, tau) [R | t] (omega about the
 * camera centre, tau in camera axes) and the intrinsics fx, fy, cx, cy (which also set J's clamp).
 */
import type { PinholeCamera } from '../../shared/scene/camera.js';
import { shCoefficientCount } from '../../shared/scene/splats.js';
import {
  cameraFrame,
  checkDegree,
  PROJECTION_FLAG,
  projectSplat,
  SplatFrame,
  type CameraFrame,
  type ParameterGradients,
  type ProjectedGradients,
  type ProjectionOptions,
  type SplatParams,
} from './projection.js';

export function projectionBackward(
  params: SplatParams,
  shDegree: number,
  camera: PinholeCamera,
  options: ProjectionOptions,
  grads: ProjectedGradients,
  cameraGrad?: Float64Array,
): ParameterGradients {
  checkDegree(params, shDegree);
  const n = params.count;
  const out: ParameterGradients = {
    means: new Float64Array(3 * n),
    logScales: new Float64Array(3 * n),
    quats: new Float64Array(4 * n),
    opacityLogits: new Float64Array(n),
    sh: new Float64Array(n * shCoefficientCount(params.shDegree) * 3),
  };
  const cam = cameraFrame(camera);
  const f = new SplatFrame();
  for (let i = 0; i < n; i++) {
    if (projectSplat(params, i, shDegree, cam, options, f)) splatBackward(params, i, shDegree, cam, options, f, grads, out, cameraGrad);
  }
  return out;
}

function splatBackward(
  params: SplatParams,
  i: number,
  shDegree: number,
  cam: CameraFrame,
  options: ProjectionOptions,
  f: SplatFrame,
  grads: ProjectedGradients,
  out: ParameterGradients,
  cameraGrad: Float64Array | undefined,
): void {
  const R = cam.rot;
  const gMean = [0, 0, 0];
  const gp = [0, 0, 0];
  const gRotQ = new Float64Array(9);

  // Colour = max(0, sum_k sh_k Y_k(dir) + 0.5), dir = normalize(mean - centre).
  const K = shCoefficientCount(params.shDegree);
  const kActive = shCoefficientCount(shDegree);
  const gDirUnit = [0, 0, 0];
  for (let ch = 0; ch < 3; ch++) {
    if (f.flags & (PROJECTION_FLAG.colourClampR << ch)) continue;
    const g = grads.colour[3 * i + ch];
    for (let k = 0; k < kActive; k++) {
      const at = (i * K + k) * 3 + ch;
      out.sh[at] += g * f.basis[k];
      const coefficient = params.sh[at];
      for (let d = 0; d < 3; d++) gDirUnit[d] += g * coefficient * f.basisJac[3 * k + d];
    }
  }
  const radial = gDirUnit[0] * f.dir[0] + gDirUnit[1] * f.dir[1] + gDirUnit[2] * f.dir[2];
  for (let d = 0; d < 3; d++) gMean[d] += (gDirUnit[d] - f.dir[d] * radial) / f.dirLength;
  const gCentreOffset = gMean.slice(); // dL/d(mean - camera centre) through the view direction

  // Normal = sign * R * (column `axis` of Rq); the sign and the axis choice are locally constant.
  for (let r = 0; r < 3; r++) {
    let g = 0;
    for (let s = 0; s < 3; s++) g += R[3 * s + r] * grads.normal[3 * i + s];
    gRotQ[3 * r + f.normalAxis] += f.normalSign * g;
  }

  // Opacity = sigmoid(logit) * compensation.
  const gOpacity = grads.opacity[i];
  out.opacityLogits[i] = gOpacity * f.compensation * f.sigmoid * (1 - f.sigmoid);
  const gCompensation = gOpacity * f.sigmoid;

  // conic = covBlur^-1: dL/dcovBlur = -Q G Q with G the full-matrix gradient of the conic.
  const [qa, qb, qc] = f.conic;
  const ga = grads.conic[3 * i];
  const gb = 0.5 * grads.conic[3 * i + 1];
  const gc = grads.conic[3 * i + 2];
  // QG = Q * G, then -(QG) * Q.
  const qg00 = qa * ga + qb * gb;
  const qg01 = qa * gb + qb * gc;
  const qg10 = qb * ga + qc * gb;
  const qg11 = qb * gb + qc * gc;
  const gCov = [-(qg00 * qa + qg01 * qb), -(qg00 * qb + qg01 * qc), -(qg10 * qb + qg11 * qc)]; // (00, 01 = 10, 11)

  // covBlur = cov0 + eps2d I; compensation = sqrt(det0 / detBlur) in antialiased mode.
  if (options.antialiased && f.compensation > 0) {
    const gRatio = (0.5 * gCompensation) / f.compensation;
    const gDet0 = gRatio / f.detBlur;
    const gDetBlur = (-gRatio * f.det0) / (f.detBlur * f.detBlur);
    // d det(M) / dM = [[m11, -m01], [-m10, m00]] (full matrix).
    gCov[0] += gDet0 * f.cov0[2] + gDetBlur * f.covBlur[2];
    gCov[1] += -gDet0 * f.cov0[1] - gDetBlur * f.covBlur[1];
    gCov[2] += gDet0 * f.cov0[0] + gDetBlur * f.covBlur[0];
  }

  // cov0 = J SigmaCam J^T: dL/dSigmaCam = J^T G J, dL/dJ = 2 G J SigmaCam.
  const J = f.jac;
  const G = [gCov[0], gCov[1], gCov[1], gCov[2]];
  const gJ = new Float64Array(6);
  const gj = new Float64Array(6); // G J
  for (let r = 0; r < 2; r++) {
    for (let k = 0; k < 3; k++) gj[3 * r + k] = G[2 * r] * J[k] + G[2 * r + 1] * J[3 + k];
  }
  for (let r = 0; r < 2; r++) {
    for (let k = 0; k < 3; k++) {
      let s = 0;
      for (let m = 0; m < 3; m++) s += gj[3 * r + m] * f.sigmaCam[3 * m + k];
      gJ[3 * r + k] = 2 * s;
    }
  }
  const gSigmaCam = new Float64Array(9);
  for (let r = 0; r < 3; r++) {
    for (let s = 0; s < 3; s++) gSigmaCam[3 * r + s] = J[r] * gj[s] + J[3 + r] * gj[3 + s];
  }

  // mean2d = (fx x/z + cx, fy y/z + cy); depth = z; J = [[fx/z, 0, -fx rx/z], [0, fy/z, -fy ry/z]].
  const [x, y, z] = f.p;
  const { fx, fy } = cam;
  const gu = grads.mean2d[2 * i];
  const gv = grads.mean2d[2 * i + 1];
  gp[0] += (fx / z) * gu;
  gp[1] += (fy / z) * gv;
  gp[2] += -(fx * x * gu + fy * y * gv) / (z * z) + grads.depth[i];
  gp[2] += (-fx / (z * z)) * gJ[0] + (-fy / (z * z)) * gJ[4];
  gp[2] += ((fx * f.rx) / (z * z)) * gJ[2] + ((fy * f.ry) / (z * z)) * gJ[5];
  if (!(f.flags & PROJECTION_FLAG.clampX)) {
    gp[0] += (-fx / (z * z)) * gJ[2];
    gp[2] += ((fx * x) / (z * z * z)) * gJ[2];
  }
  if (!(f.flags & PROJECTION_FLAG.clampY)) {
    gp[1] += (-fy / (z * z)) * gJ[5];
    gp[2] += ((fy * y) / (z * z * z)) * gJ[5];
  }

  if (cameraGrad) addCameraGrad(cameraGrad, cam, f, gp, gSigmaCam, gCentreOffset, [gu, gv], gJ, grads.normal.subarray(3 * i, 3 * i + 3));

  // SigmaCam = A A^T with A = R Rq S: dL/dA = 2 G A, dL/d(Rq S) = R^T dL/dA.
  const gA = new Float64Array(9);
  for (let r = 0; r < 3; r++) {
    for (let k = 0; k < 3; k++) {
      gA[3 * r + k] = 2 * (gSigmaCam[3 * r] * f.camM[k] + gSigmaCam[3 * r + 1] * f.camM[3 + k] + gSigmaCam[3 * r + 2] * f.camM[6 + k]);
    }
  }
  const gScale = [0, 0, 0];
  for (let r = 0; r < 3; r++) {
    for (let k = 0; k < 3; k++) {
      const gM = R[r] * gA[k] + R[3 + r] * gA[3 + k] + R[6 + r] * gA[6 + k];
      gRotQ[3 * r + k] += gM * f.scale[k];
      gScale[k] += gM * f.rotQ[3 * r + k];
    }
  }
  for (let k = 0; k < 3; k++) out.logScales[3 * i + k] = gScale[k] * f.scale[k];

  // p = R mean + t.
  for (let d = 0; d < 3; d++) out.means[3 * i + d] = gMean[d] + R[d] * gp[0] + R[3 + d] * gp[1] + R[6 + d] * gp[2];

  // Rq(qn), then qn = q / |q|.
  const [w, a, b, c] = f.qn;
  const g = gRotQ;
  const gqn = [
    2 * (-c * g[1] + b * g[2] + c * g[3] - a * g[5] - b * g[6] + a * g[7]),
    2 * (b * g[1] + c * g[2] + b * g[3] - 2 * a * g[4] - w * g[5] + c * g[6] + w * g[7] - 2 * a * g[8]),
    2 * (-2 * b * g[0] + a * g[1] + w * g[2] + a * g[3] + c * g[5] - w * g[6] + c * g[7] - 2 * b * g[8]),
    2 * (-2 * c * g[0] - w * g[1] + a * g[2] + w * g[3] - 2 * c * g[4] + b * g[5] + a * g[6] + b * g[7]),
  ];
  const along = gqn[0] * w + gqn[1] * a + gqn[2] * b + gqn[3] * c;
  for (let d = 0; d < 4; d++) out.quats[4 * i + d] = (gqn[d] - f.qn[d] * along) / f.qNorm;
}

/**
 * One splat's dL/d(camera), added to `out` (12: (omega, fx), (tau, fy), (cx, cy, 0, 0)).
 * omega: dp = omega x p and dSigmaCam = [omega]x SigmaCam + SigmaCam [omega]x^T; tau: dp = tau and
 * the centre moves by -R^T tau. Intrinsics: mean2d and J; a clamped x/z makes J's third column
 * -(fx * limit) / z with fx * limit = (1.15 w - cx) or -(cx + 0.15 w): no fx, slope 1/z in cx.
 */
function addCameraGrad(out: Float64Array, cam: CameraFrame, f: SplatFrame, gp: readonly number[], gSigmaCam: Float64Array, gCentreOffset: readonly number[], gMean2d: readonly number[], gJ: Float64Array, gNormal: ArrayLike<number>): void {
  const [x, y, z] = f.p;
  // A = 2 G SigmaCam (row-major); dL/domega = p x gp + (A32 - A23, A13 - A31, A21 - A12).
  const A = new Float64Array(9);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += gSigmaCam[3 * r + k] * f.sigmaCam[3 * k + c];
      A[3 * r + c] = 2 * s;
    }
  }
  out[0] += y * gp[2] - z * gp[1] + A[7] - A[5];
  out[1] += z * gp[0] - x * gp[2] + A[2] - A[6];
  out[2] += x * gp[1] - y * gp[0] + A[3] - A[1];
  // the normal turns with the camera: dn = omega x n
  const n = f.normal;
  out[0] += n[1] * gNormal[2] - n[2] * gNormal[1];
  out[1] += n[2] * gNormal[0] - n[0] * gNormal[2];
  out[2] += n[0] * gNormal[1] - n[1] * gNormal[0];
  const R = cam.rot;
  for (let r = 0; r < 3; r++) out[4 + r] += gp[r] + R[3 * r] * gCentreOffset[0] + R[3 * r + 1] * gCentreOffset[1] + R[3 * r + 2] * gCentreOffset[2];
  const clampX = (f.flags & PROJECTION_FLAG.clampX) !== 0;
  const clampY = (f.flags & PROJECTION_FLAG.clampY) !== 0;
  out[3] += (gMean2d[0] * x) / z + gJ[0] / z + (clampX ? 0 : (-gJ[2] * x) / (z * z));
  out[7] += (gMean2d[1] * y) / z + gJ[4] / z + (clampY ? 0 : (-gJ[5] * y) / (z * z));
  out[8] += gMean2d[0] + (clampX ? gJ[2] / z : 0);
  out[9] += gMean2d[1] + (clampY ? gJ[5] / z : 0);
}
