/**
 * SIFT's GPU stages against tests/reference/sift.ts, each stage fed the GPU's own inputs so an
 * early difference does not cascade: the pyramid against the reference pyramid of the same image;
 * the GPU's extrema against the reference's extrema on the reference pyramid; the reference's
 * orientations at the GPU's sample points; the reference's descriptors at the GPU's points and
 * orientations. Float32 against float64 moves values by ~1e-7, which flips only keypoints whose
 * contrast, edge or peak test sits within that of its threshold: the keypoint and orientation
 * stages allow a few such (stated per case), the pyramid and descriptors none.
 */
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { SiftExtractor } from '../../main/engine/sfm/features.js';
import type { GreyImage } from '../../main/engine/sfm/grey-image.js';
import type { SiftOptions } from '../../main/engine/sfm/sift-options.js';
import { rng } from '../helpers/random.js';
import { blobImage } from '../main/engine/sfm/sift-images.js';
import { referenceDescriptor, referenceDetect, referenceOrientations, referencePyramid } from '../reference/sift.js';
import type { ParityResult } from './types.js';

export const SIFT_TOLERANCES = {
  /** Largest |GPU - reference| of any Gaussian or DoG value (images in [0, 1]). */
  pyramid: 1e-5,
  /**
   * Keypoints in both sets (same octave and final sample, position and level within
   * keypointOffset) over the union, or all but one in a small set. The offset is 1% of a sample:
   * an ill-conditioned fit (small Hessian determinant) multiplies float32's ~3e-7 in the DoG into
   * 1e-3 of position (seed 2424266701, 203x97: 1.4e-3), while a wrong fit is off by tenths.
   */
  keypointsMatched: 0.97,
  keypointOffset: 1e-2,
  /** Points whose orientation count and angles (within 1e-3 rad) agree, or all but one. */
  orientationsMatched: 0.97,
  orientationAngle: 1e-3,
  /**
   * L2 distance of unit descriptors at the same point and angle: every one under half a stored
   * byte's step (1 / 1024), so the bytes differ by at most one rounding. Measured: 3e-6 on llvmpipe,
   * 2.5e-4 on SwiftShader, whose atan2 / sin / cos / exp use the looser precision WebGPU allows
   * (Vulkan's atan: 4096 ulp).
   */
  descriptor: 1 / 1024,
};

export interface SiftCase {
  width: number;
  height: number;
  firstOctave?: 0 | -1;
}

export const SIFT_CASES: readonly SiftCase[] = [
  { width: 160, height: 120 },
  { width: 203, height: 97 },
  { width: 96, height: 80, firstOctave: -1 },
];

const circular = (a: number, b: number) => {
  const d = Math.abs(a - b) % (2 * Math.PI);
  return Math.min(d, 2 * Math.PI - d);
};

export async function siftParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: SiftCase): Promise<ParityResult[]> {
  const image = blobImage(c.width, c.height, rng(seed));
  return siftImageParity(ctx, variant, seed, image, `${c.width}x${c.height}${c.firstOctave === -1 ? ' upsampled' : ''}`, { firstOctave: c.firstOctave ?? 0 });
}

/**
 * Every stage on one image. `sampleEvery`: compare orientations and descriptors of every n-th
 * point only (a real image's reference takes seconds per thousand points).
 */
export async function siftImageParity(ctx: GpuContext, variant: KernelVariant, seed: number, image: GreyImage, name: string, options: Partial<SiftOptions> = {}, sampleEvery = 1): Promise<ParityResult[]> {
  const extractor = await SiftExtractor.create(ctx, { maxFeatures: 1 << 20, ...options }, variant);
  const results: ParityResult[] = [];
  const result = (stage: string, ok: boolean, error: number, tolerance: number, detail: string) => results.push({ name: `sift ${stage} ${name}`, variant, seed, ok, error, tolerance, detail });
  try {
    const stages = await extractor.extractStages(image);
    const reference = referencePyramid(image, extractor.options);
    // pyramid
    let worst = 0;
    let where = '';
    for (let o = 0; o < reference.length; o++) {
      const got = await stages.pyramid.read(o);
      for (const kind of ['gauss', 'dog'] as const)
        got[kind].forEach((plane, s) => {
          for (let p = 0; p < plane.length; p++) {
            const e = Math.abs(plane[p] - reference[o][kind][s][p]);
            if (!(e <= worst)) {
              worst = Number.isFinite(e) ? e : Infinity;
              where = `octave ${o} ${kind} ${s} pixel ${p}`;
            }
          }
        });
    }
    result('pyramid', worst <= SIFT_TOLERANCES.pyramid, worst, SIFT_TOLERANCES.pyramid, `${reference.length} octaves; worst at ${where}`);
    // keypoints
    const want = referenceDetect(reference, extractor.options);
    const key = (k: { octave: number; xi: number; yi: number; si: number }) => `${k.octave},${k.xi},${k.yi},${k.si}`;
    const byKey = new Map(want.map((k) => [key(k), k]));
    let matched = 0;
    for (const k of stages.detected) {
      const r = byKey.get(key(k));
      const t = SIFT_TOLERANCES.keypointOffset;
      if (r && Math.abs(r.x - k.x) < t && Math.abs(r.y - k.y) < t && Math.abs(r.s - k.s) < t && Math.abs(r.response - k.response) < t * r.response) matched++;
    }
    const union = stages.detected.length + want.length - matched;
    const fraction = union ? matched / union : 1;
    result('keypoints', (fraction >= SIFT_TOLERANCES.keypointsMatched || union - matched <= 1) && want.length > 0, 1 - fraction, 1 - SIFT_TOLERANCES.keypointsMatched, `${matched} matched of GPU ${stages.detected.length} / reference ${want.length}`);
    // orientations and descriptors at the GPU's points
    const M = extractor.options.maxOrientations;
    let compared = 0;
    let agreed = 0;
    let descriptors = 0;
    let worstDescriptor = 0;
    stages.points.forEach((point, i) => {
      if (i % sampleEvery) return;
      compared++;
      const ref = referenceOrientations(reference, point, M);
      const got = Array.from(stages.described.orientations.subarray(i * M, (i + 1) * M)).filter((a) => a >= 0);
      if (ref.length === got.length && ref.every((a, j) => circular(a, got[j]) < SIFT_TOLERANCES.orientationAngle)) agreed++;
      got.forEach((theta, j) => {
        const r = referenceDescriptor(reference, point, theta);
        const g = stages.described.descriptors.subarray((i * M + j) * 128, (i * M + j + 1) * 128);
        let e = 0;
        for (let d = 0; d < 128; d++) e += (r[d] - g[d]) ** 2;
        worstDescriptor = Math.max(worstDescriptor, Number.isFinite(e) ? Math.sqrt(e) : Infinity);
        descriptors++;
      });
    });
    const orientFraction = compared ? agreed / compared : 1;
    result('orientations', (orientFraction >= SIFT_TOLERANCES.orientationsMatched || compared - agreed <= 1) && compared > 0, 1 - orientFraction, 1 - SIFT_TOLERANCES.orientationsMatched, `${agreed} of ${compared} points agree`);
    result('descriptors', worstDescriptor <= SIFT_TOLERANCES.descriptor && descriptors > 0, worstDescriptor, SIFT_TOLERANCES.descriptor, `${descriptors} descriptors, worst L2 distance ${worstDescriptor.toExponential(2)}`);
  } finally {
    extractor.destroy();
  }
  return results;
}
