/**
 * `capture --features gpu`: our SIFT, descriptor matching and geometric verification
 * (main/engine/sfm) in place of COLMAP's feature_extractor and matcher, written into COLMAP's
 * database.db (sfm/colmap-database.ts: keypoints, descriptors, raw matches and
 * two_view_geometries) so that its `mapper` runs on them directly.
 *
 * Pairs by capture kind (sfm/match-pairs.ts selectPairs: sequential + loop candidates for a clip,
 * exhaustive for up to 100 photos, retrieval beyond) unless --matcher forced a plain rule.
 * Verification follows COLMAP 3.8's TwoViewGeometry::Estimate: E only where both cameras have a
 * prior focal length (EXIF, calibration); F and H otherwise, as its matcher does with a guessed
 * focal. `verifier: 'colmap'` keeps COLMAP's own verification of our matches for comparison
 * (matches_importer over pairs.txt, run by sfm.ts).
 *
 * Cameras by group (camera-groups.ts): one per video clip, one per size and EXIF group of photos;
 * focal from a photo's EXIF (exif-focal.ts), else 1.2 x the long side (sfm/colmap-database.ts
 * defaultCameraParams).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { isFile } from '../dataset/source-view.js';
import type { GpuContext } from '../gpu/context.js';
import { defaultCameraParams, readColmapDatabase, writeColmapDatabase, type ColmapCameraModel, type DatabaseCamera, type DatabaseImage, type DatabaseTwoViewGeometry, COLMAP_CAMERA_MODELS } from '../sfm/colmap-database.js';
import { SiftExtractor } from '../sfm/features.js';
import { extractAll } from '../sfm/extract-all.js';
import { loadGreyImage, loadKeypointMask, type GreyImage } from '../sfm/grey-image.js';
import type { KeypointMask } from '../sfm/keypoint-selection.js';
import { CAPTURE_SIFT } from '../sfm/sift-options.js';
import { cameraGroupKey, pinholeOf } from './camera-groups.js';
import { readExifCamera } from './exif-focal.js';
import { matchImagePairs } from '../sfm/match.js';
import { exhaustivePairs, selectPairs, sequentialPairs, type ImagePair, type PairSelection } from '../sfm/match-pairs.js';
import { gpuWordAssigner } from '../sfm/retrieval-gpu.js';
import { summariseVerification, type VerificationSummary } from '../sfm/verification-summary.js';
import type { PinholeIntrinsics, VerifyOptions } from '../sfm/verify/verify-options.js';
import { defaultVerifyThreads, VerifyPool } from '../sfm/verify/verify-pool.js';
import type { VerifiedPair } from '../sfm/verify/verify-pairs.js';

export interface GpuStageOptions {
  gpu: GpuContext;
  cameraModel: string;
  maxFeatures: number;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message: string) => void;
}

export interface GpuGroup {
  name: string;
  kind: 'video' | 'photos';
  images: string[];
}

function throwIfCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new ArgonautError('cancelled', 'cancelled');
}

export function colmapCameraModel(name: string): ColmapCameraModel {
  if (!(name in COLMAP_CAMERA_MODELS)) throw new ArgonautError('invalid_argument', `camera model ${name}: --features gpu writes ${Object.keys(COLMAP_CAMERA_MODELS).join(', ')}`);
  return name as ColmapCameraModel;
}

/**
 * Extracts every image's features on the GPU and writes a database with cameras, images,
 * keypoints and descriptors (no matches). Returns features per image name.
 *
 * With `maskDir`, `<maskDir>/<image name>.png` (where it exists, as COLMAP's ImageReader.mask_path
 * looks) restricts the keypoints to its non-zero pixels, before the budget. Images share a camera
 * by camera-groups.ts's rule (a clip's frames; photos of one size and EXIF); a photo group's camera
 * takes its EXIF focal where it has one, with prior_focal_length = 1 (capture/exif-focal.ts), as
 * COLMAP's extractor does.
 */
export async function extractIntoDatabase(database: string, imagesDir: string, groups: readonly GpuGroup[], options: GpuStageOptions & { maskDir?: string }): Promise<{ features: Record<string, number>; seconds: { extract: number; write: number } }> {
  const model = colmapCameraModel(options.cameraModel);
  const total = groups.reduce((s, g) => s + g.images.length, 0);
  const cameras: DatabaseCamera[] = [];
  const images: DatabaseImage[] = [];
  const features: Record<string, number> = {};
  const started = performance.now();
  const extractor = await SiftExtractor.create(options.gpu, { ...CAPTURE_SIFT, maxFeatures: options.maxFeatures });
  try {
    // every image in capture order, the next one decoded while this one is on the GPU (extract-all.ts)
    const entries = groups.flatMap((group, g) => group.images.map((name) => ({ group: g, name, file: path.join(imagesDir, name) })));
    const groupCameras = groups.map(() => new Map<string, number>());
    await extractAll(extractor, entries.map((e) => e.file), {
      signal: options.signal,
      load: async (file, index) => {
        const grey = await loadGreyImage(file);
        return { image: grey, mask: options.maskDir ? await maskOf(path.join(options.maskDir, `${entries[index].name}.png`), grey) : undefined };
      },
      onEach: async (f, index, file) => {
        const { group: g, name } = entries[index];
        const exif = groups[g].kind === 'photos' ? await readExifCamera(file, f.width, f.height) : undefined;
        const key = cameraGroupKey({ width: f.width, height: f.height, exif });
        let groupCamera = groupCameras[g].get(key);
        if (groupCamera === undefined) {
          const focal = exif?.focal?.focal;
          cameras.push({ model, width: f.width, height: f.height, ...(focal ? { params: defaultCameraParams(model, f.width, f.height, focal), priorFocalLength: true } : {}) });
          groupCamera = cameras.length;
          groupCameras[g].set(key, groupCamera);
        }
        images.push({ name, cameraId: groupCamera, keypoints: f.keypoints, descriptors: f.descriptors });
        features[name] = f.keypoints.length / 4;
        options.onProgress?.(images.length / total, `extract ${images.length}/${total} images (${name}: ${features[name]} features)`);
      },
    });
  } finally {
    extractor.destroy();
  }
  const extracted = performance.now();
  await writeColmapDatabase(database, { cameras, images, matches: [] });
  return { features, seconds: { extract: (extracted - started) / 1000, write: (performance.now() - extracted) / 1000 } };
}

/** An image's mask where its file exists (COLMAP skips a missing one too), refused naming the file unless it has the image's size. */
async function maskOf(file: string, image: GreyImage): Promise<KeypointMask | undefined> {
  if (!(await isFile(file))) return undefined;
  const mask = await loadKeypointMask(file);
  if (mask.width !== image.width || mask.height !== image.height) throw badInput(file, `mask is ${mask.width}x${mask.height} but its image is ${image.width}x${image.height}`);
  return mask;
}

/** The pairs to match over the whole set in capture order (the COLMAP path's matcher over the same database). */
export function pairsFor(matcher: 'sequential' | 'exhaustive', images: number): ImagePair[] {
  return matcher === 'sequential' ? sequentialPairs(images) : exhaustivePairs(images);
}

/** 'by-kind': selectPairs by the capture's kind; 'sequential' / 'exhaustive': the plain rule --matcher forced. */
export type GpuPairRule = 'by-kind' | 'sequential' | 'exhaustive';

/** One clip is video (its frames in time order); photos, or several inputs together, are a photo set. */
export function captureKind(groups: readonly Pick<GpuGroup, 'kind'>[]): 'video' | 'photos' {
  return groups.length === 1 && groups[0].kind === 'video' ? 'video' : 'photos';
}

/** The pairs our matcher takes, and how they were chosen (the report's `pairs.method`). */
export async function choosePairs(rule: GpuPairRule, kind: 'video' | 'photos', images: readonly { descriptors: Uint8Array }[], gpu?: GpuContext): Promise<PairSelection> {
  if (rule !== 'by-kind') return { pairs: pairsFor(rule, images.length), method: rule, retrieved: 0 };
  // retrieval's word assignment on the GPU where we have one (the same pairs as the CPU's, faster)
  return selectPairs(kind, images, {}, gpu ? await gpuWordAssigner(gpu) : undefined);
}

/**
 * Intrinsics for E, image by image: a camera's pinhole part where its focal length is a prior
 * (COLMAP's rule for EstimateCalibrated), undefined where it is the 1.2 x long side guess (F then).
 * Distortion terms are not applied: every camera capture writes has them at zero.
 */
export function verificationIntrinsics(cameras: readonly Required<DatabaseCamera>[], images: readonly { cameraId: number }[]): (PinholeIntrinsics | undefined)[] {
  return images.map((im) => {
    const camera = cameras[im.cameraId - 1];
    return camera?.priorFocalLength ? pinholeOf(camera) : undefined;
  });
}

/**
 * Capture's verification: COLMAP 3.8's defaults, and its rule for a planar or panoramic pair's
 * inliers (the larger set): on the apple clip every pair is PLANAR_OR_PANORAMIC (H explains ~94%
 * of F's inliers) and the inliers only F keeps, off the dominant plane, are 87% in the final
 * model's tracks (docs/sfm.md); H's alone lost 6% of the points.
 */
export const CAPTURE_VERIFY_OPTIONS: Partial<VerifyOptions> = { planarInliers: 'larger' };

/** The database row of a verified pair (image ids = capture index + 1, so image1 < image2). */
export function twoViewRow({ pair: [i, j], geometry, inlierMatches }: VerifiedPair): DatabaseTwoViewGeometry {
  return {
    image1: i + 1, image2: j + 1, config: geometry.configuration, inlierMatches,
    fundamental: geometry.fundamental, essential: geometry.essential, homography: geometry.homography,
    rotation: geometry.rotation, translation: geometry.translation,
  };
}

export interface MatchIntoDatabaseOptions {
  rule: GpuPairRule;
  kind: 'video' | 'photos';
  /** 'ours' (default): verify and write two_view_geometries; 'colmap': raw matches and pairs.txt only, for matches_importer. */
  verifier?: 'ours' | 'colmap';
  /** COLMAP's pair list ("name1 name2" a line), written for verifier 'colmap'. */
  pairListFile: string;
}

export interface MatchIntoDatabaseResult {
  selection: Omit<PairSelection, 'pairs'> & { pairs: number };
  matches: number;
  /** Our verification's outcome (verifier 'ours'). */
  verification?: VerificationSummary;
  seconds: { pairs: number; match: number; verify?: number };
}

/**
 * Chooses the pairs, matches them on the GPU and (verifier 'ours') verifies them; rewrites the
 * database with the raw matches and the two-view geometries. Each pair's verification starts on
 * the worker threads (sfm/verify/verify-pool.ts) as soon as the GPU has matched it, so the two
 * overlap; `seconds.verify` is what verification takes after the last pair is matched.
 * Progress: matching 0-0.9 and verification the rest, summed as each advances.
 */
export async function matchIntoDatabase(database: string, how: MatchIntoDatabaseOptions, options: GpuStageOptions): Promise<MatchIntoDatabaseResult> {
  const t0 = performance.now();
  const content = await readColmapDatabase(database);
  const selection = await choosePairs(how.rule, how.kind, content.images, options.gpu);
  const { pairs } = selection;
  const t1 = performance.now();
  const ours = (how.verifier ?? 'ours') === 'ours';
  const matchShare = ours ? 0.9 : 1;
  let matched = 0;
  let verifiedCount = 0;
  const progress = (message: string) => {
    const total = Math.max(1, pairs.length);
    options.onProgress?.(matchShare * (matched / total) + (1 - matchShare) * (verifiedCount / total), message);
  };
  const verifier = ours
    ? new VerifyPool(content.images.map((im) => im.keypoints), verificationIntrinsics(content.cameras, content.images), CAPTURE_VERIFY_OPTIONS, {
        threads: Math.min(defaultVerifyThreads(), pairs.length),
        signal: options.signal,
        onVerified: (done) => {
          verifiedCount = done;
          progress(`verify ${done}/${pairs.length} pairs`);
        },
      })
    : undefined;
  let raw: Uint32Array[];
  let verified: VerifiedPair[] | undefined;
  let t2: number;
  try {
    raw = await matchImagePairs(options.gpu, content.images, pairs, {}, (done, _total, pairMatches) => {
      throwIfCancelled(options.signal);
      matched = done;
      verifier?.add(pairs[done - 1], pairMatches);
      progress(`match ${done}/${pairs.length} pairs`);
    });
    t2 = performance.now();
    verified = await verifier?.finish();
  } finally {
    await verifier?.close();
  }
  const matches = pairs.map(([i, j], k) => ({ image1: i + 1, image2: j + 1, matches: raw[k] }));
  const verification: VerificationSummary | undefined = verified ? summariseVerification(verified) : undefined;
  const twoViewGeometries: DatabaseTwoViewGeometry[] | undefined = verified?.map(twoViewRow);
  const t3 = performance.now();
  await writeColmapDatabase(database, { cameras: content.cameras, images: content.images, matches, ...(twoViewGeometries ? { twoViewGeometries } : {}) });
  if (!ours) await writeFile(how.pairListFile, pairs.map(([i, j]) => `${content.images[i].name} ${content.images[j].name}\n`).join(''));
  return {
    selection: { method: selection.method, pairs: pairs.length, retrieved: selection.retrieved, ...(selection.retrievalMs !== undefined ? { retrievalMs: selection.retrievalMs } : {}) },
    matches: raw.reduce((s, m) => s + m.length / 2, 0),
    ...(verification ? { verification } : {}),
    seconds: { pairs: (t1 - t0) / 1000, match: (t2 - t1) / 1000, ...(ours ? { verify: (t3 - t2) / 1000 } : {}) },
  };
}
