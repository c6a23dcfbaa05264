/**
 * SIFT features of a grey image on the GPU: scale space (sift-pyramid.ts), extrema
 * (sift-detect.ts), the budget spread over the image (keypoint-selection.ts), orientations and
 * RootSIFT descriptors (sift-describe.ts). Outputs in COLMAP's conventions, ready for its
 * database: keypoints (x, y, scale, orientation) in image pixels with the first pixel's centre at
 * (0.5, 0.5), descriptors as bytes min(255, round(512 v)).
 *
 * Reproducible: the same image gives the same bytes (lists sorted on the host, one thread per
 * histogram, no float atomics). Output order: (octave, y, x, level) of the sample, then strength
 * of the orientation.
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { upsample2x, type GreyImage } from './grey-image.js';
import { selectSpread, unmasked, type KeypointMask } from './keypoint-selection.js';
import { describePipelines, KeypointDescriber, samplePoint, type Described, type DescribePipelines, type SamplePoint } from './sift-describe.js';
import { detectPipeline, EXPECTED_KEYPOINTS, KeypointDetector, timeHost, type DetectedKeypoint, type HostTimes } from './sift-detect.js';
import { DESCRIPTOR_SIZE, levelSigma, siftOptions, type SiftOptions } from './sift-options.js';
import { pyramidPipelines, SiftPyramid, type PyramidPipelines } from './sift-pyramid.js';

export interface Features {
  width: number;
  height: number;
  /** 4 per keypoint: x, y (pixels, first pixel's centre at 0.5), scale (pixels), orientation (radians). */
  keypoints: Float32Array;
  /** 128 per keypoint: RootSIFT * 512, rounded, clamped to 255. */
  descriptors: Uint8Array;
}

export interface ExtractionStages {
  pyramid: SiftPyramid;
  /** Every refined extremum, sorted (sift-detect.ts). */
  detected: DetectedKeypoint[];
  /** The kept ones (indices into `detected`: on unmasked pixels, within the budget) and where they sample. */
  selected: number[];
  points: SamplePoint[];
  /** Orientation slots after the budget, their descriptor bytes and floats. */
  described: Required<Described>;
  features: Features;
  /** Host ms per stage; pyramidMs holds the pyramid's GPU time only with extractStages(image, undefined, true). */
  timings: { pyramidMs: number; detectMs: number; describeMs: number; host: HostTimes };
}

export class SiftExtractor {
  private pyramid: SiftPyramid | undefined;
  /** Keypoints the last image listed, with room: read back with the detection counter (sift-detect.ts). */
  private expectedKeypoints = EXPECTED_KEYPOINTS;

  /** Kept across images: a frame of a clip creates no GPU object (docs/sfm.md, "Extraction throughput"). */
  private readonly detector: KeypointDetector;
  private readonly describer: KeypointDescriber;

  private constructor(
    private readonly ctx: GpuContext,
    readonly options: SiftOptions,
    private readonly pyramidKernels: PyramidPipelines,
    detectKernel: CompiledPipeline,
    describeKernels: DescribePipelines,
  ) {
    this.detector = new KeypointDetector(ctx, detectKernel);
    this.describer = new KeypointDescriber(ctx, describeKernels);
  }

  /** `variant`: force a capability variant (parity tests); default: the device's. */
  static async create(ctx: GpuContext, options: Partial<SiftOptions> = {}, variant?: KernelVariant): Promise<SiftExtractor> {
    const resolved = siftOptions(options);
    const [p, d, q] = await Promise.all([pyramidPipelines(ctx, resolved, variant), detectPipeline(ctx, variant), describePipelines(ctx, variant)]);
    return new SiftExtractor(ctx, resolved, p, d, q);
  }

  /** `mask`: keypoints only where it is non-zero (of the image's size); the budget goes to those. */
  async extract(image: GreyImage, mask?: KeypointMask): Promise<Features> {
    return (await this.run(image, mask, false, false)).features;
  }

  /**
   * Every stage's output (the parity tests compare each with the float64 reference). The host waits
   * twice per image: for the pyramid and the extrema list (one submit, one read-back), and for the
   * orientations and descriptors (likewise; a third wait only where the budget must drop
   * orientations). `mask`: as extract's. `timeStages`: wait for the pyramid alone too, so that
   * timings.pyramidMs is the pyramid's (benchmarks); otherwise the pyramid's GPU time is inside detectMs.
   */
  async extractStages(image: GreyImage, mask?: KeypointMask, timeStages = false): Promise<ExtractionStages> {
    const stages = await this.run(image, mask, timeStages, true);
    const { descriptors } = stages.described;
    if (!descriptors) throw new Error('sift: the describer returned no float descriptors');
    return { ...stages, described: { ...stages.described, descriptors } };
  }

  /** `floats`: read the float descriptors back too (extractStages; extract needs only the bytes). */
  private async run(image: GreyImage, mask: KeypointMask | undefined, timeStages: boolean, floats: boolean): Promise<Omit<ExtractionStages, 'described'> & { described: Described }> {
    const { ctx, options } = this;
    if (image.data.length !== image.width * image.height) throw new ArgonautError('bad_input', `sift: image data has ${image.data.length} values for ${image.width}x${image.height}`);
    if (mask && (mask.width !== image.width || mask.height !== image.height || mask.keep.length !== image.width * image.height)) {
      throw new ArgonautError('bad_input', `sift: the mask is ${mask.width}x${mask.height} (${mask.keep.length} values) for a ${image.width}x${image.height} image`);
    }
    const host: HostTimes = {};
    const t0 = performance.now();
    if (!this.pyramid || this.pyramid.width !== image.width || this.pyramid.height !== image.height) {
      this.pyramid?.destroy();
      this.pyramid = new SiftPyramid(ctx, this.pyramidKernels, image.width, image.height, options);
    }
    const pyramid = this.pyramid;
    const pixels = timeHost(host, 'upsample', () => (options.firstOctave === -1 ? upsample2x(image).data : image.data));
    timeHost(host, 'upload', () => pyramid.upload(pixels));
    const commands = ctx.commands('sift.pyramid');
    timeHost(host, 'pyramid.encode', () => pyramid.encode(commands));
    await commands.submit();
    if (timeStages) await ctx.device.queue.onSubmittedWorkDone();
    const t1 = performance.now();
    const detection = await this.detector.detect(pyramid, options, undefined, this.expectedKeypoints, host);
    this.expectedKeypoints = Math.ceil(detection.listed * 1.25) + 256;
    const detected = detection.keypoints;
    const t2 = performance.now();
    const { selected, points } = timeHost(host, 'select', () => {
      const inImage = detected.map((k) => ({ x: k.x * pyramid.octaves[k.octave].step, y: k.y * pyramid.octaves[k.octave].step, response: k.response }));
      const candidates = unmasked(inImage, mask);
      const selected = selectSpread(candidates.map((i) => inImage[i]), image.width, image.height, options.maxFeatures).map((j) => candidates[j]);
      return { selected, points: selected.map((i) => samplePoint(detected[i], options)) };
    });
    // the budget can only drop orientations where the slots exceed it
    const budget = points.length * options.maxOrientations > options.maxFeatures ? (o: Float32Array) => keepBudget(o, selected.map((i) => detected[i].response), options) : undefined;
    const described = await this.describer.describe(pyramid, points, options, budget, host, floats);
    const t3 = performance.now();
    ctx.assertNoErrors('sift feature extraction');
    const features = timeHost(host, 'assemble', () => assemble(image, pyramid, selected.map((i) => detected[i]), described, options));
    host.detect = t2 - t1;
    host.describe = t3 - t2;
    return { pyramid, detected, selected, points, described, features, timings: { pyramidMs: t1 - t0, detectMs: t2 - t1, describeMs: t3 - t2, host } };
  }

  destroy(): void {
    this.pyramid?.destroy();
    this.pyramid = undefined;
    this.detector.destroy();
    this.describer.destroy();
  }
}

/** SIFT features of one image (compiles the kernels on first use; SiftExtractor for many images). */
export async function extractFeatures(ctx: GpuContext, image: GreyImage, options: Partial<SiftOptions> = {}): Promise<Features> {
  const extractor = await SiftExtractor.create(ctx, options);
  try {
    return await extractor.extract(image);
  } finally {
    extractor.destroy();
  }
}

/**
 * The budget counts oriented keypoints: every kept point's strongest orientation first (by the
 * point's response), then second orientations by response, until maxFeatures; the rest become -1.
 */
export function keepBudget(orientations: Float32Array, responses: readonly number[], options: SiftOptions): Float32Array {
  const M = options.maxOrientations;
  const out = Float32Array.from(orientations);
  const slots: number[] = [];
  for (let i = 0; i < out.length; i++) if (out[i] >= 0) slots.push(i);
  if (slots.length <= options.maxFeatures) return out;
  slots.sort((a, b) => (a % M) - (b % M) || responses[Math.floor(b / M)] - responses[Math.floor(a / M)] || a - b);
  for (const slot of slots.slice(options.maxFeatures)) out[slot] = -1;
  return out;
}

/** Kept slots in image pixels, and their bytes (made on the GPU) packed without the empty slots. */
function assemble(image: GreyImage, pyramid: SiftPyramid, kept: readonly DetectedKeypoint[], described: Described, options: SiftOptions): Features {
  const M = options.maxOrientations;
  const { orientations, bytes } = described;
  let count = 0;
  for (const o of orientations) if (o >= 0) count++;
  const keypoints = new Float32Array(count * 4);
  const descriptors = new Uint8Array(count * DESCRIPTOR_SIZE);
  let n = 0;
  for (let i = 0; i < kept.length; i++) {
    const k = kept[i];
    const step = pyramid.octaves[k.octave].step;
    for (let j = 0; j < M; j++) {
      const slot = i * M + j;
      const theta = orientations[slot];
      if (theta < 0) continue;
      keypoints[4 * n] = k.x * step + 0.5;
      keypoints[4 * n + 1] = k.y * step + 0.5;
      keypoints[4 * n + 2] = levelSigma(k.s, options) * step;
      keypoints[4 * n + 3] = theta;
      descriptors.set(bytes.subarray(slot * DESCRIPTOR_SIZE, (slot + 1) * DESCRIPTOR_SIZE), n * DESCRIPTOR_SIZE);
      n++;
    }
  }
  return { width: image.width, height: image.height, keypoints, descriptors };
}
