/**
 * The statue photos through our front end (GPU SIFT, exhaustive GPU matching, verifyPairs), with
 * COLMAP's model of the same photos as the reference. The front end takes minutes on llvmpipe, so
 * its result is cached in the system's temporary folder (keyed by the image names and a version):
 * a rerun of the mapping test reads it back in a second.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseCamerasBin, parseImagesBin } from '../../../../../main/engine/dataset/colmap-binary.js';
import type { ColmapImage } from '../../../../../main/engine/dataset/colmap-model.js';
import { SiftExtractor } from '../../../../../main/engine/sfm/features.js';
import { loadGreyImage } from '../../../../../main/engine/sfm/grey-image.js';
import { exhaustivePairs } from '../../../../../main/engine/sfm/match-pairs.js';
import { matchImagePairs } from '../../../../../main/engine/sfm/match.js';
import type { PinholeIntrinsics } from '../../../../../main/engine/sfm/verify/verify-options.js';
import { verifyPairs, type VerifiedPair } from '../../../../../main/engine/sfm/verify/verify-pairs.js';
import { CAPTURE_VERIFY_OPTIONS } from '../../../../../main/engine/capture/sfm-gpu.js';
import { testGpu } from '../../../../helpers/gpu.js';
import { cachedPairOf, verifiedPairOf, type CachedPair } from './cached-pairs.js';

/** 2: the homography kept (planar pairs are posed from it). */
const CACHE_VERSION = 2;

export interface StatueFrontEnd {
  names: string[];
  sizes: { width: number; height: number }[];
  intrinsics: PinholeIntrinsics[];
  keypoints: Float32Array[];
  verified: VerifiedPair[];
  /** COLMAP's pose of each photo (world to camera), in `names` order. */
  reference: ColmapImage[];
  frontEndSeconds: number;
  fromCache: boolean;
}


/**
 * 'true-intrinsics': verification knows COLMAP's intrinsics (CALIBRATED pairs with E, R, t).
 * 'fundamental-only': capture's verification of photos without EXIF (CAPTURE_VERIFY_OPTIONS, no
 * intrinsics), so pairs carry F only (UNCALIBRATED): what view-graph calibration starts from.
 */
export type StatueVerification = 'true-intrinsics' | 'fundamental-only';

export async function statueFrontEnd(dir: string, verification: StatueVerification = 'true-intrinsics'): Promise<StatueFrontEnd> {
  const model = path.join(dir, 'sparse/0');
  const cameras = parseCamerasBin(readFileSync(path.join(model, 'cameras.bin')), 'cameras.bin');
  const images = parseImagesBin(readFileSync(path.join(model, 'images.bin')), 'images.bin', cameras);
  const names = readdirSync(path.join(dir, 'images')).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
  const reference = names.map((name) => {
    const image = images.find((candidate) => candidate.name === name);
    if (!image) throw new Error(`statue-pairs.ts: ${name} is not in ${model}`);
    return image;
  });
  const intrinsics = reference.map((image) => {
    const p = cameras.get(image.cameraId)!.params; // PINHOLE: fx, fy, cx, cy (the undistorted model)
    return { focalX: p[0], focalY: p[1], principalX: p[2], principalY: p[3] };
  });
  const cacheFile = path.join(tmpdir(), `argonaut-global-sfm-statue${verification === 'fundamental-only' ? '-fonly' : ''}-v${CACHE_VERSION}-${names.length}.json`);
  if (existsSync(cacheFile)) {
    const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as { names: string[]; sizes: StatueFrontEnd['sizes']; keypoints: number[][]; pairs: CachedPair[]; seconds: number };
    if (cached.names.join('/') === names.join('/')) {
      return {
        names,
        sizes: cached.sizes,
        intrinsics,
        keypoints: cached.keypoints.map((k) => Float32Array.from(k)),
        verified: cached.pairs.map(verifiedPairOf),
        reference,
        frontEndSeconds: cached.seconds,
        fromCache: true,
      };
    }
  }
  const started = performance.now();
  const ctx = await testGpu();
  const extractor = await SiftExtractor.create(ctx, {});
  const features = [];
  const sizes = [];
  for (const name of names) {
    const grey = await loadGreyImage(path.join(dir, 'images', name));
    sizes.push({ width: grey.width, height: grey.height });
    features.push(await extractor.extract(grey));
  }
  extractor.destroy();
  const pairs = exhaustivePairs(names.length);
  const matches = await matchImagePairs(ctx, features, pairs);
  const keypoints = features.map((f) => f.keypoints);
  const verified = verification === 'fundamental-only' ? verifyPairs(pairs, matches, keypoints, undefined, CAPTURE_VERIFY_OPTIONS) : verifyPairs(pairs, matches, keypoints, intrinsics);
  const seconds = (performance.now() - started) / 1000;
  const cachedPairs: CachedPair[] = verified.map(cachedPairOf);
  writeFileSync(cacheFile, JSON.stringify({ names, sizes, keypoints: keypoints.map((k) => Array.from(k)), pairs: cachedPairs, seconds }));
  return { names, sizes, intrinsics, keypoints, verified, reference, frontEndSeconds: seconds, fromCache: false };
}
