/**
 * A posed synthetic dataset (NeRF's layout: RGBA views and a transforms.json) through our front end
 * (GPU SIFT at capture's settings, GPU matching, verifyPairs with the dataset's known camera), for
 * the mapping accuracy checks (mic, the rendered video). The front end takes most of an hour on
 * llvmpipe for mic's 100 views, so its stages are cached in the system's temporary folder: the
 * features per image as they are extracted (a stopped run resumes there), then the verified pairs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readImage } from '../../../../../main/engine/formats/images.js';
import type { Features } from '../../../../../main/engine/sfm/features.js';
import { SiftExtractor } from '../../../../../main/engine/sfm/features.js';
import type { GreyImage } from '../../../../../main/engine/sfm/grey-image.js';
import { exhaustivePairs, sequentialPairs } from '../../../../../main/engine/sfm/match-pairs.js';
import { matchImagePairs } from '../../../../../main/engine/sfm/match.js';
import { CAPTURE_SIFT } from '../../../../../main/engine/sfm/sift-options.js';
import { CAPTURE_VERIFY_OPTIONS } from '../../../../../main/engine/capture/sfm-gpu.js';
import type { PinholeIntrinsics } from '../../../../../main/engine/sfm/verify/verify-options.js';
import { verifyPairs, type VerifiedPair } from '../../../../../main/engine/sfm/verify/verify-pairs.js';
import { testGpu } from '../../../../helpers/gpu.js';
import { cachedPairOf, verifiedPairOf, type CachedPair } from './cached-pairs.js';

const CACHE_VERSION = 1;

export interface PosedView {
  /** transforms.json's file_path ("./train/r_0"). */
  name: string;
  /** Camera to world, OpenGL axes (NeRF's transform_matrix), row-major 4x4. */
  cameraToWorld: number[][];
}

export interface PosedFrontEnd {
  views: PosedView[];
  camera: PinholeIntrinsics;
  keypoints: Float32Array[];
  /** Per image, 128 bytes per keypoint (features.ts). */
  descriptors: Uint8Array[];
  verified: VerifiedPair[];
  frontEndSeconds: number;
  fromCache: boolean;
}

export interface PosedFrontEndRequest {
  /** Names the cache (with the version and the view count). */
  name: string;
  /** The dataset folder and its transforms file (relative to it). */
  dir: string;
  transforms: string;
  /** Composited under the views' alpha, 0..255 per channel. */
  background: [number, number, number];
  pairs: 'exhaustive' | 'sequential';
  log?: (line: string) => void;
}


/** The view composited over `background` (rgb a + bg (1 - a)), then capture's grey (Rec. 709 luma / 255). */
async function compositedGrey(file: string, background: readonly [number, number, number]): Promise<GreyImage> {
  const { width, height, channels, data } = await readImage(file);
  const out = new Float32Array(width * height);
  const luma = [0.2126, 0.7152, 0.0722];
  for (let p = 0; p < out.length; p++) {
    const alpha = channels === 4 ? data[4 * p + 3] / 255 : 1;
    let grey = 0;
    for (let c = 0; c < 3; c++) grey += luma[c] * Math.round(data[p * channels + c] * alpha + background[c] * (1 - alpha));
    out[p] = grey / 255;
  }
  return { width, height, data: out };
}

interface TransformsFile {
  camera_angle_x: number;
  frames: { file_path: string; transform_matrix: number[][] }[];
}

/** Where the request's stages are cached, and its verified pairs' file there. */
function cachePaths(request: PosedFrontEndRequest, viewCount: number): { cacheDir: string; pairsFile: string } {
  const cacheDir = path.join(tmpdir(), `argonaut-posed-${request.name}-v${CACHE_VERSION}-${viewCount}`);
  return { cacheDir, pairsFile: path.join(cacheDir, `pairs-${request.pairs}.json`) };
}

function readTransforms(request: PosedFrontEndRequest): TransformsFile {
  return JSON.parse(readFileSync(path.join(request.dir, request.transforms), 'utf8')) as TransformsFile;
}

/** Whether the request's verified pairs are cached already (the front end would take no time). */
export function posedFrontEndCached(request: PosedFrontEndRequest): boolean {
  return existsSync(cachePaths(request, readTransforms(request).frames.length).pairsFile);
}

export async function posedFrontEnd(request: PosedFrontEndRequest): Promise<PosedFrontEnd> {
  const log = request.log ?? (() => {});
  const transforms = readTransforms(request);
  const views = transforms.frames.map((f) => ({ name: f.file_path, cameraToWorld: f.transform_matrix }));
  const files = views.map((v) => path.join(request.dir, /\.\w+$/.test(v.name) ? v.name : `${v.name}.png`));
  const { cacheDir, pairsFile } = cachePaths(request, views.length);
  mkdirSync(cacheDir, { recursive: true });
  const started = performance.now();
  let width = 0;
  let height = 0;
  const ctx = existsSync(pairsFile) ? undefined : await testGpu();
  const features: Features[] = [];
  let extractor: SiftExtractor | undefined;
  for (let i = 0; i < files.length && ctx; i++) {
    const keypointsFile = path.join(cacheDir, `${i}.keypoints`);
    const descriptorsFile = path.join(cacheDir, `${i}.descriptors`);
    if (existsSync(descriptorsFile)) {
      const k = readFileSync(keypointsFile);
      const d = readFileSync(descriptorsFile);
      const meta = JSON.parse(readFileSync(path.join(cacheDir, `${i}.json`), 'utf8')) as { width: number; height: number };
      features.push({ ...meta, keypoints: new Float32Array(k.buffer.slice(k.byteOffset, k.byteOffset + k.byteLength)), descriptors: new Uint8Array(d) });
      continue;
    }
    extractor ??= await SiftExtractor.create(ctx, { ...CAPTURE_SIFT });
    const extracted = await extractor.extract(await compositedGrey(files[i], request.background));
    writeFileSync(keypointsFile, Buffer.from(extracted.keypoints.buffer, extracted.keypoints.byteOffset, extracted.keypoints.byteLength));
    writeFileSync(path.join(cacheDir, `${i}.json`), JSON.stringify({ width: extracted.width, height: extracted.height }));
    writeFileSync(descriptorsFile, extracted.descriptors);
    features.push(extracted);
    log(`${request.name}: extracted ${i + 1}/${files.length} (${extracted.keypoints.length / 4} keypoints)`);
  }
  extractor?.destroy();
  if (ctx) {
    width = features[0].width;
    height = features[0].height;
    const pairs = request.pairs === 'exhaustive' ? exhaustivePairs(views.length) : sequentialPairs(views.length);
    const matches = await matchImagePairs(ctx, features, pairs, {}, (done, total) => {
      if (done % 100 === 0 || done === total) log(`${request.name}: matched ${done}/${total}`);
    });
    const camera = cameraOf(transforms.camera_angle_x, width, height);
    const verified = verifyPairs(pairs, matches, features.map((f) => f.keypoints), views.map(() => camera), CAPTURE_VERIFY_OPTIONS, (done, total) => {
      if (done % 100 === 0 || done === total) log(`${request.name}: verified ${done}/${total}`);
    });
    const cachedPairs: CachedPair[] = verified.map(cachedPairOf);
    const seconds = (performance.now() - started) / 1000;
    writeFileSync(pairsFile, JSON.stringify({ width, height, pairs: cachedPairs, seconds }));
  }
  const cached = JSON.parse(readFileSync(pairsFile, 'utf8')) as { width: number; height: number; pairs: CachedPair[]; seconds: number };
  const keypoints = views.map((_, i) => {
    const k = readFileSync(path.join(cacheDir, `${i}.keypoints`));
    return new Float32Array(k.buffer.slice(k.byteOffset, k.byteOffset + k.byteLength));
  });
  const descriptors = views.map((_, i) => new Uint8Array(readFileSync(path.join(cacheDir, `${i}.descriptors`))));
  return {
    views,
    camera: cameraOf(transforms.camera_angle_x, cached.width, cached.height),
    keypoints,
    descriptors,
    verified: cached.pairs.map(verifiedPairOf),
    frontEndSeconds: cached.seconds,
    fromCache: !ctx,
  };
}

/** NeRF's camera: f = W / 2 / tan(camera_angle_x / 2), the principal point at the centre. */
function cameraOf(angleX: number, width: number, height: number): PinholeIntrinsics {
  const focal = width / 2 / Math.tan(angleX / 2);
  return { focalX: focal, focalY: focal, principalX: width / 2, principalY: height / 2 };
}
