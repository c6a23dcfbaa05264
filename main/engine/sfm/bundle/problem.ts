/**
 * Bundle adjustment's problem: the one formulation that the float64 reference (reference.ts,
 * bundle-adjust-cpu.ts) and the GPU solver share (the spec: docs/sfm.md, "Bundle adjustment").
 * Types, the validation both run first (checkProblem: named errors), and the index views both
 * iterate: observations by point and by image, images by camera (CSR), and the layout of the
 * reduced ("camera") variables: pose blocks of the free images, then intrinsic blocks.
 */
import { refinedParameterIndices, CAMERA_MODELS, type BaCameraModel } from './camera-models.js';

export type { BaCameraModel } from './camera-models.js';

export interface BaCamera {
  model: BaCameraModel;
  /** COLMAP's order (camera-models.ts). */
  params: Float64Array;
}

export interface BaProblem {
  /** Intrinsics groups, shared by the images that name them. */
  cameras: BaCamera[];
  /** Image -> camera index. */
  imageCamera: Uint32Array;
  /** 9 per image, row-major, world to camera: X_c = R X + t. */
  rotations: Float64Array;
  /** 3 per image. */
  translations: Float64Array;
  /** 3 per point. */
  points: Float64Array;
  /** Per observation: the image, the point, and the measured pixel (x, y; COLMAP's convention, pixel centres at +0.5). */
  obsImage: Uint32Array;
  obsPoint: Uint32Array;
  obsXY: Float64Array;
  /** 1 = the pose is held (the gauge). Default (absent): the first image held. */
  fixedImages?: Uint8Array;
}

export type BaLoss = 'trivial' | 'huber' | 'cauchy';

export interface BaOptions {
  /** Which intrinsics are variables (COLMAP's defaults: focal and extra yes, principal point no). */
  refineFocal: boolean;
  refinePrincipalPoint: boolean;
  /** The distortion terms (k, k1, k2, p1, p2). */
  refineExtra: boolean;
  loss: BaLoss;
  /** The loss's scale c, pixels of reprojection error. */
  lossScalePx: number;
  /** LM iterations (accepted or not) at most. */
  maxIterations: number;
  /** Stop when an accepted step changes the cost by less than this fraction of it. */
  functionTolerance: number;
  /** Stop when max |g| is below this. */
  gradientTolerance: number;
  /** Stop when |delta| < parameterTolerance (|x| + parameterTolerance). */
  parameterTolerance: number;
  pcgMaxIterations: number;
  /** PCG stops at ||r|| <= pcgTolerance ||b||. */
  pcgTolerance: number;
  initialLambda: number;
}

/**
 * The defaults (docs/sfm.md, "Bundle adjustment"): COLMAP's refined set (focal and distortion,
 * not the principal point). Cauchy at 1 px: inliers of ~0.5 px noise keep >= 80% weight, a 10 px
 * outlier 1% (it redescends, where Huber would still pull with a tenth of an inlier's force per
 * pixel); on the synthetic scene with 5% outliers it fits the inliers to 0.57 px against 1.48 with
 * the trivial loss. Function tolerance 1e-5, not Ceres' 1e-6: IRLS weights converge linearly
 * (Ceres' Triggs correction is not in the spec), and on the statue 1e-6 took 37 iterations a
 * round for the same poses (0.070 against 0.078 deg median, 2x the time). The rest Ceres' defaults
 * (initial trust region 1e4 = lambda 1e-4) and COLMAP's caps; PCG to 1e-4 took 50-75 iterations on
 * the statue, 17-24 on the synthetic scene.
 */
export const BA_DEFAULTS: Readonly<BaOptions> = {
  refineFocal: true,
  refinePrincipalPoint: false,
  refineExtra: true,
  loss: 'cauchy',
  lossScalePx: 1,
  maxIterations: 100,
  functionTolerance: 1e-5,
  gradientTolerance: 1e-10,
  parameterTolerance: 1e-8,
  pcgMaxIterations: 100,
  pcgTolerance: 1e-4,
  initialLambda: 1e-4,
};

export type BaStopReason = 'max iterations' | 'function tolerance' | 'gradient tolerance' | 'parameter tolerance' | 'lambda too large';

export interface BaIterationRecord {
  /** The float64 robust cost after this iteration (the new one if accepted, the old one if not). */
  cost: number;
  /** The lambda this iteration's step was solved with. */
  lambda: number;
  pcgIterations: number;
  accepted: boolean;
}

export interface BaResult {
  /** An updated copy; the input is not changed. */
  problem: BaProblem;
  initialCost: number;
  finalCost: number;
  iterations: number;
  reason: BaStopReason;
  perIteration: BaIterationRecord[];
  seconds: number;
}

export interface BaControl {
  /** Checked between iterations: an aborted signal throws its reason (or an AbortError). */
  signal?: AbortSignal;
  onProgress?: (iteration: number, record: BaIterationRecord) => void;
}

/** A solver: the CPU one (bundle-adjust-cpu.ts) or the GPU one, interchangeable for the mapper. */
export type BundleAdjuster = (problem: BaProblem, options: BaOptions, control?: BaControl) => Promise<BaResult>;

export const imageCountOf = (p: BaProblem): number => p.rotations.length / 9;
export const pointCountOf = (p: BaProblem): number => p.points.length / 3;
export const observationCountOf = (p: BaProblem): number => p.obsImage.length;

/** 1 per held image: the problem's own mask or the default (the first image). */
export function fixedImageMask(problem: BaProblem): Uint8Array {
  if (problem.fixedImages) return problem.fixedImages;
  const mask = new Uint8Array(imageCountOf(problem));
  if (mask.length > 0) mask[0] = 1;
  return mask;
}

/**
 * Throws, naming the field and what was expected, unless the problem is one both solvers can
 * take: sizes agree, every value finite, every index in range, parameters as many as the model
 * has, at least one observation, every point seen by at least two images and by no image twice
 * (the preconditioner's per-observation Schur term relies on that), every free image seeing a point.
 */
export function checkProblem(problem: BaProblem): void {
  const fail = (message: string): never => {
    throw new Error(`bundle/problem.ts: ${message}`);
  };
  const { cameras, imageCamera, rotations, translations, points, obsImage, obsPoint, obsXY } = problem;
  if (cameras.length === 0) fail('no cameras');
  cameras.forEach((camera, c) => {
    const model = CAMERA_MODELS[camera.model];
    if (!model) fail(`camera ${c}: unknown model '${camera.model}' (expected one of ${Object.keys(CAMERA_MODELS).join(', ')})`);
    if (camera.params.length !== model.parameterNames.length) fail(`camera ${c} (${camera.model}): ${camera.params.length} params, expected ${model.parameterNames.length} (${model.parameterNames.join(', ')})`);
    checkFinite(camera.params, `camera ${c} params`, fail);
    if (!(camera.params[0] > 0) || (model.parameterNames[1] === 'fy' && !(camera.params[1] > 0))) fail(`camera ${c}: focal length must be positive (params ${Array.from(camera.params).join(', ')})`);
  });
  if (rotations.length % 9 !== 0) fail(`rotations: ${rotations.length} values, expected 9 per image`);
  const imageCount = rotations.length / 9;
  if (imageCount === 0) fail('no images');
  if (translations.length !== 3 * imageCount) fail(`translations: ${translations.length} values, expected 3 per image (${3 * imageCount})`);
  if (imageCamera.length !== imageCount) fail(`imageCamera: ${imageCamera.length} entries, expected one per image (${imageCount})`);
  imageCamera.forEach((c, i) => {
    if (c >= cameras.length) fail(`imageCamera[${i}] = ${c}, but there are ${cameras.length} cameras`);
  });
  checkFinite(rotations, 'rotations', fail);
  checkFinite(translations, 'translations', fail);
  if (problem.fixedImages && problem.fixedImages.length !== imageCount) fail(`fixedImages: ${problem.fixedImages.length} entries, expected one per image (${imageCount})`);
  if (points.length % 3 !== 0) fail(`points: ${points.length} values, expected 3 per point`);
  checkFinite(points, 'points', fail);
  const observationCount = obsImage.length;
  if (observationCount === 0) fail('no observations: nothing to adjust (every point needs two images that see it)');
  if (obsPoint.length !== observationCount || obsXY.length !== 2 * observationCount) {
    fail(`observations: ${obsImage.length} images, ${obsPoint.length} points and ${obsXY.length / 2} pixels, expected as many of each`);
  }
  checkFinite(obsXY, 'obsXY', fail);
  const pointCount = points.length / 3;
  for (let o = 0; o < observationCount; o++) {
    if (obsImage[o] >= imageCount) fail(`observation ${o}: image ${obsImage[o]}, but there are ${imageCount}`);
    if (obsPoint[o] >= pointCount) fail(`observation ${o}: point ${obsPoint[o]}, but there are ${pointCount}`);
  }
  const graph = buildObservationGraph(problem);
  for (let j = 0; j < pointCount; j++) {
    const count = graph.pointObsStart[j + 1] - graph.pointObsStart[j];
    if (count < 2) fail(`point ${j} has ${count} observation(s); each point needs at least 2 (drop it or add its other views)`);
    const images = new Set<number>();
    for (let k = graph.pointObsStart[j]; k < graph.pointObsStart[j + 1]; k++) {
      const image = obsImage[graph.pointObs[k]];
      if (images.has(image)) fail(`point ${j} is observed twice by image ${image}; a point has at most one observation per image`);
      images.add(image);
    }
  }
  const fixed = fixedImageMask(problem);
  for (let i = 0; i < imageCount; i++) {
    if (!fixed[i] && graph.imageObsStart[i + 1] === graph.imageObsStart[i]) fail(`image ${i} observes no point, so its pose is free but undetermined (hold it in fixedImages or leave it out)`);
  }
}

function checkFinite(values: Float64Array, name: string, fail: (message: string) => never): void {
  for (let k = 0; k < values.length; k++) if (!Number.isFinite(values[k])) fail(`${name}[${k}] is ${values[k]}, expected a finite number`);
}

/** CSR views: for each row r, items[start[r] .. start[r + 1]) in ascending order. */
export interface ObservationGraph {
  pointObsStart: Uint32Array;
  /** Observation indices grouped by point. */
  pointObs: Uint32Array;
  imageObsStart: Uint32Array;
  /** Observation indices grouped by image. */
  imageObs: Uint32Array;
  cameraImageStart: Uint32Array;
  /** Image indices grouped by camera. */
  cameraImages: Uint32Array;
}

export function buildObservationGraph(problem: BaProblem): ObservationGraph {
  const [pointObsStart, pointObs] = groupBy(problem.obsPoint, pointCountOf(problem));
  const [imageObsStart, imageObs] = groupBy(problem.obsImage, imageCountOf(problem));
  const [cameraImageStart, cameraImages] = groupBy(problem.imageCamera, problem.cameras.length);
  return { pointObsStart, pointObs, imageObsStart, imageObs, cameraImageStart, cameraImages };
}

/** Counting sort of the indices 0..keys.length-1 by key (stable, so ascending within a row). */
function groupBy(keys: Uint32Array, rowCount: number): [Uint32Array, Uint32Array] {
  const start = new Uint32Array(rowCount + 1);
  for (let k = 0; k < keys.length; k++) start[keys[k] + 1]++;
  for (let r = 0; r < rowCount; r++) start[r + 1] += start[r];
  const next = start.slice(0, rowCount);
  const items = new Uint32Array(keys.length);
  for (let k = 0; k < keys.length; k++) items[next[keys[k]]++] = k;
  return [start, items];
}

/**
 * Where each variable block sits in the reduced vector dc = [pose blocks of the free images
 * (6 each: dw, dt, by ascending image); intrinsic blocks (k_c each, by ascending camera)].
 */
export interface ReducedLayout {
  /** Per image: the offset of its pose block in dc, or -1 when the image is held. */
  poseOffset: Int32Array;
  /** Per camera: the offset of its intrinsic block in dc (its size is refined[c].length; 0 = none). */
  intrinsicOffset: Int32Array;
  /** Per camera: the refined parameter indices in COLMAP's order. */
  refined: number[][];
  /** max_c refined[c].length: the row length of the per-observation intrinsic Jacobians (2 rows). */
  intrinsicStride: number;
  /** The length of dc. */
  reducedSize: number;
  freeImageCount: number;
}

export function buildReducedLayout(problem: BaProblem, options: Pick<BaOptions, 'refineFocal' | 'refinePrincipalPoint' | 'refineExtra'>): ReducedLayout {
  const fixed = fixedImageMask(problem);
  const poseOffset = new Int32Array(imageCountOf(problem)).fill(-1);
  let size = 0;
  for (let i = 0; i < poseOffset.length; i++) {
    if (fixed[i]) continue;
    poseOffset[i] = size;
    size += 6;
  }
  const freeImageCount = size / 6;
  const refined = problem.cameras.map((camera) => refinedParameterIndices(camera.model, options));
  const intrinsicOffset = new Int32Array(problem.cameras.length);
  refined.forEach((indices, c) => {
    intrinsicOffset[c] = size;
    size += indices.length;
  });
  return { poseOffset, intrinsicOffset, refined, intrinsicStride: Math.max(0, ...refined.map((r) => r.length)), reducedSize: size, freeImageCount };
}

/** A deep copy (every array new), so a solver can return an updated problem and leave its input alone. */
export function copyProblem(problem: BaProblem): BaProblem {
  return {
    cameras: problem.cameras.map((c) => ({ model: c.model, params: c.params.slice() })),
    imageCamera: problem.imageCamera.slice(),
    rotations: problem.rotations.slice(),
    translations: problem.translations.slice(),
    points: problem.points.slice(),
    obsImage: problem.obsImage.slice(),
    obsPoint: problem.obsPoint.slice(),
    obsXY: problem.obsXY.slice(),
    ...(problem.fixedImages ? { fixedImages: problem.fixedImages.slice() } : {}),
  };
}
