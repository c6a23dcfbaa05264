/**
 * The statue photos through our front end (GPU SIFT, exhaustive GPU matching, verifyPairs), with
 * COLMAP's model of the same photos as the reference. The front end takes minutes on llvmpipe, so
 * its result is cached in the system's temporary folder (keyed by the image names and a version):
 * a rerun of the mapping test reads it back in a second. SIFT and matching, most of it, are cached
 * on their own too: both verifications start from them, so of the three files
 * on a fresh machine (statue, refine-mapping-statue, view-graph-calibration-statue) one computes
 * them, under a lock file, and the others read them.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
import { isAlive } from '../../../../helpers/capture.js';
import { testGpu } from '../../../../helpers/gpu.js';
import { cachedPairOf, verifiedPairOf, type CachedPair } from './cached-pairs.js';

/** 2: the homography kept (planar pairs are posed from it). */
const CACHE_VERSION = 2;
/** 1: keypoints and exhaustive matches before verification. */
const MATCHES_CACHE_VERSION = 1;
/** How long a file waits for another one's SIFT and matching before computing them itself. */
const LOCK_WAIT_MS = 600_000;

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
  const matched = await statueMatches(dir, names);
  const { sizes, keypoints } = matched;
  const started = performance.now();
  const verified = verification === 'fundamental-only' ? verifyPairs(matched.pairs, matched.matches, keypoints, undefined, CAPTURE_VERIFY_OPTIONS) : verifyPairs(matched.pairs, matched.matches, keypoints, intrinsics);
  const seconds = matched.seconds + (performance.now() - started) / 1000;
  const cachedPairs: CachedPair[] = verified.map(cachedPairOf);
  const partial = `${cacheFile}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify({ names, sizes, keypoints: keypoints.map((k) => Array.from(k)), pairs: cachedPairs, seconds }));
  renameSync(partial, cacheFile); // two files may verify at once: a reader sees one whole file
  return { names, sizes, intrinsics, keypoints, verified, reference, frontEndSeconds: seconds, fromCache: matched.fromCache };
}

interface StatueMatches {
  sizes: { width: number; height: number }[];
  keypoints: Float32Array[];
  pairs: [number, number][];
  matches: Uint32Array[];
  /** SIFT and matching when they were computed. */
  seconds: number;
  fromCache: boolean;
}

/** GPU SIFT and exhaustive matching of the photos, from the cache, another file's computation (waiting on its lock) or computed here. */
async function statueMatches(dir: string, names: string[]): Promise<StatueMatches> {
  const cacheFile = path.join(tmpdir(), `argonaut-global-sfm-statue-matches-v${MATCHES_CACHE_VERSION}-${names.length}.json`);
  const pairs = exhaustivePairs(names.length).map(([a, b]): [number, number] => [a, b]);
  const cached = (): StatueMatches | undefined => {
    if (!existsSync(cacheFile)) return undefined;
    const c = JSON.parse(readFileSync(cacheFile, 'utf8')) as { names: string[]; sizes: StatueMatches['sizes']; keypoints: number[][]; matches: number[][]; seconds: number };
    if (c.names.join('/') !== names.join('/')) return undefined;
    return { sizes: c.sizes, keypoints: c.keypoints.map((k) => Float32Array.from(k)), pairs, matches: c.matches.map((m) => Uint32Array.from(m)), seconds: c.seconds, fromCache: true };
  };
  const lock = `${cacheFile}.lock`;
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    const hit = cached();
    if (hit) return hit;
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSync(lock, 'utf8'));
    if ((holder > 0 && !isAlive(holder)) || performance.now() > deadline) rmSync(lock, { force: true }); // its file died (or hangs): compute here
    else await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  try {
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
    const matches = await matchImagePairs(ctx, features, pairs);
    const keypoints = features.map((f) => f.keypoints);
    const seconds = (performance.now() - started) / 1000;
    const partial = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ names, sizes, keypoints: keypoints.map((k) => Array.from(k)), matches: matches.map((m) => Array.from(m)), seconds }));
    renameSync(partial, cacheFile); // whole or absent for the files that wait
    return { sizes, keypoints, pairs, matches, seconds, fromCache: false };
  } finally {
    rmSync(lock, { force: true });
  }
}
