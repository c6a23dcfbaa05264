/**
 * SIFT's parameters and the scale-space layout they imply (Lowe 2004; VLFeat's and COLMAP's
 * conventions where they choose). One source of truth for the GPU host (sift-*.ts) and the float64
 * reference the tests hold it to (tests/reference/sift.ts reads only the numbers, never the math).
 *
 * Choices, stated:
 * - First octave 0: no upsampling by default (COLMAP 3.8's default is first_octave -1, which
 *   quadruples the work of the first octave and finds about 2-3x the small keypoints; `firstOctave: -1` does it).
 * - S = 3 scales per octave, S + 3 Gaussian levels, S + 2 DoG levels; sigma0 = 1.6; the camera is
 *   assumed to have blurred the image by 0.5 (1.0 after upsampling).
 * - Peak threshold 0.02 / S = 0.00667 on images in [0, 1] (COLMAP's default), pre-threshold 0.8 of
 *   it before the 26-neighbour test (VLFeat), edge threshold r = 10.
 * - Up to 2 orientations per keypoint (COLMAP's max_num_orientations), each peak >= 0.8 of the
 *   histogram's maximum.
 */
export interface SiftOptions {
  /** Keypoints kept per image (oriented keypoints, each orientation counts). */
  maxFeatures: number;
  /** 0: the image as is; -1: upsampled 2x first (bilinear). */
  firstOctave: 0 | -1;
  /** Octaves at most (fewer where the image gets too small: MIN_OCTAVE_SIZE). */
  numOctaves: number;
  scalesPerOctave: number;
  /** |DoG| at the refined extremum, image values in [0, 1]. */
  peakThreshold: number;
  /** Lowe's r: principal curvature ratio above which an extremum is an edge. */
  edgeThreshold: number;
  maxOrientations: number;
}

export const SIFT_DEFAULTS: Readonly<SiftOptions> = {
  maxFeatures: 8192,
  firstOctave: 0,
  numOctaves: 4,
  scalesPerOctave: 3,
  peakThreshold: 0.02 / 3,
  edgeThreshold: 10,
  maxOrientations: 2,
};

/**
 * What capture (capture/sfm-gpu.ts) and `bench sfm` extract with, over SIFT_DEFAULTS: first octave
 * -1, as COLMAP's extractor runs. At 0 the apple clip's model had 30% of COLMAP's points and a 29%
 * higher mean reprojection error; at -1 it is within 2% (docs/sfm.md, "SIFT for mapping").
 */
export const CAPTURE_SIFT: Readonly<Partial<SiftOptions>> = { firstOctave: -1 };

export const SIGMA0 = 1.6;
export const CAMERA_BLUR = 0.5;
/** Fraction of the peak threshold a DoG value needs before the 26-neighbour test (VLFeat). */
export const PRE_THRESHOLD_FRACTION = 0.8;
/** Pixels at an octave's edge where no extremum is looked for (OpenCV's SIFT_IMG_BORDER). */
export const DETECT_BORDER = 5;
/** An octave smaller than this on a side is not built. */
export const MIN_OCTAVE_SIZE = 16;
/** Refinement steps (3D quadratic fits) before an extremum that keeps moving is dropped. */
export const REFINE_STEPS = 5;
/** A fit that moves more than this many samples in one step is dropped as unstable. */
export const REFINE_MAX_OFFSET = 3;
export const ORIENTATION_BINS = 36;
/** Orientation window: Gaussian sigma = 1.5 sigma, radius 3 of those (VLFeat). */
export const ORIENTATION_SIGMA_FACTOR = 1.5;
/** Circular [1 1 1] / 3 smoothings of the orientation histogram (VLFeat). */
export const ORIENTATION_SMOOTHINGS = 6;
export const ORIENTATION_PEAK_RATIO = 0.8;
/** Descriptor: 4x4 spatial bins of 3 sigma, 8 orientation bins; 128 values. */
export const DESCRIPTOR_SPATIAL_BINS = 4;
export const DESCRIPTOR_ORIENTATION_BINS = 8;
export const DESCRIPTOR_MAGNIFICATION = 3;
export const DESCRIPTOR_SIZE = 128;
export const DESCRIPTOR_CLAMP = 0.2;
/** COLMAP stores RootSIFT as min(255, round(512 v)). */
export const DESCRIPTOR_BYTE_SCALE = 512;
/** Gaussian kernels reach ceil(4 sigma) (VLFeat); kernels/sift-pyramid.wgsl holds up to this radius. */
export const BLUR_TRUNCATION = 4;
export const MAX_BLUR_RADIUS = 16;

export function siftOptions(options: Partial<SiftOptions> = {}): SiftOptions {
  const o = { ...SIFT_DEFAULTS, ...options };
  if (!Number.isInteger(o.maxFeatures) || o.maxFeatures < 1) throw new Error(`sift: maxFeatures must be a positive integer, got ${o.maxFeatures}`);
  if (o.firstOctave !== 0 && o.firstOctave !== -1) throw new Error(`sift: firstOctave must be 0 or -1, got ${o.firstOctave}`);
  if (!Number.isInteger(o.numOctaves) || o.numOctaves < 1) throw new Error(`sift: numOctaves must be a positive integer, got ${o.numOctaves}`);
  if (!Number.isInteger(o.scalesPerOctave) || o.scalesPerOctave < 1 || o.scalesPerOctave > 6) throw new Error(`sift: scalesPerOctave must be an integer in [1, 6], got ${o.scalesPerOctave}`);
  if (!(o.peakThreshold > 0) || !(o.edgeThreshold > 1)) throw new Error(`sift: peakThreshold must be > 0 and edgeThreshold > 1 (got ${o.peakThreshold}, ${o.edgeThreshold})`);
  if (!Number.isInteger(o.maxOrientations) || o.maxOrientations < 1 || o.maxOrientations > 4) throw new Error(`sift: maxOrientations must be an integer in [1, 4], got ${o.maxOrientations}`);
  return o;
}

export interface OctaveLayout {
  index: number;
  width: number;
  height: number;
  /** Input image pixels per octave pixel: 2^(index + firstOctave). */
  step: number;
}

/** The octaves of an image (of the size given, before any upsampling). */
export function octaveLayout(width: number, height: number, options: SiftOptions): OctaveLayout[] {
  let w = options.firstOctave === -1 ? 2 * width : width;
  let h = options.firstOctave === -1 ? 2 * height : height;
  const octaves: OctaveLayout[] = [];
  for (let o = 0; o < options.numOctaves && Math.min(w, h) >= MIN_OCTAVE_SIZE; o++) {
    octaves.push({ index: o, width: w, height: h, step: 2 ** (o + options.firstOctave) });
    w = Math.floor(w / 2);
    h = Math.floor(h / 2);
  }
  return octaves;
}

/** Total blur (octave units) of Gaussian level `s` of every octave: sigma0 2^(s / S). */
export function levelSigma(s: number, options: SiftOptions): number {
  return SIGMA0 * 2 ** (s / options.scalesPerOctave);
}

/**
 * The Gaussian blurs that build an octave, in order: level 0 from the input (octave 0 only: from
 * the camera's blur to sigma0; later octaves start from level S of the one before, taken every
 * second pixel, which is sigma0 there), then level s from level s - 1 for s = 1..S+2.
 */
export function blurSigmas(options: SiftOptions): { base: number; levels: number[] } {
  const camera = options.firstOctave === -1 ? 2 * CAMERA_BLUR : CAMERA_BLUR;
  const base = Math.sqrt(SIGMA0 * SIGMA0 - camera * camera);
  const levels: number[] = [];
  for (let s = 1; s <= options.scalesPerOctave + 2; s++) levels.push(Math.sqrt(levelSigma(s, options) ** 2 - levelSigma(s - 1, options) ** 2));
  return { base, levels };
}

/** A normalized Gaussian sampled at integer offsets -radius..radius, radius = ceil(4 sigma). */
export function gaussianKernel(sigma: number): Float64Array {
  const radius = Math.ceil(BLUR_TRUNCATION * sigma);
  if (radius > MAX_BLUR_RADIUS) throw new Error(`sift: blur sigma ${sigma} needs radius ${radius} > ${MAX_BLUR_RADIUS} (kernels/sift-pyramid.wgsl MAX_RADIUS)`);
  const weights = new Float64Array(2 * radius + 1);
  let sum = 0;
  for (let k = -radius; k <= radius; k++) sum += weights[k + radius] = Math.exp(-(k * k) / (2 * sigma * sigma));
  for (let i = 0; i < weights.length; i++) weights[i] /= sum;
  return weights;
}
