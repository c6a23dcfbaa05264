/**
 * The fixed raster benchmark load of ../shared/bench/RASTER_LOAD.md: 2,000,000 splats of SH
 * degree 3 around gsplat's test_garden.npz points, seen by its first camera at 1237x822.
 *
 * Every random number is u(i, k) = lowbias32((i * 64 + k) XOR 0x9E3779B9) / 2^32 (splat i,
 * draw k), so the load is the same in any language and `count` < 2,000,000 gives the first
 * `count` splats of the same sequence. `rasterLoadSplat` gives the activated float64 values the
 * document's check values are stated in; `buildRasterLoad` stores them in the SplatSet
 * parameterization (log scales, opacity logits, float32).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { npyNumbers, npzArray, readNpz } from '../main/engine/formats/npz.js';
import { lowbias32 } from '../shared/random.js';
import { badInput } from '../shared/rpc/errors.js';
import type { PinholeCamera } from '../shared/scene/camera.js';
import { emptySplats, SH_C0, type SplatSet } from '../shared/scene/splats.js';

export const RASTER_LOAD_COUNT = 2_000_000;
export const RASTER_LOAD_WIDTH = 1237;
export const RASTER_LOAD_HEIGHT = 822;
export const RASTER_LOAD_NEAR = 0.01;
/** Size of the images the npz intrinsics are for. */
const SOURCE_WIDTH = 648;
const SOURCE_HEIGHT = 420;
const SH_DEGREE = 3;
const SH_COEFFICIENTS = 16;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_DATA_DIR = resolve(repoRoot, '../shared/data');
export const RASTER_LOAD_SOURCE = 'gsplat_test_garden/test_garden.npz';

export { lowbias32 };

/** u(i, k) in [0, 1): draw k < 64 of splat i. */
export function rasterLoadUniform(i: number, k: number): number {
  return lowbias32(((i * 64 + k) ^ 0x9e3779b9) >>> 0) / 4294967296;
}

export interface RasterLoadSource {
  /** P x 3 points. */
  means3d: Float32Array;
  /** P x 3 colours. */
  colors: Uint8Array;
  /** viewmats[0], row-major 4x4, world to camera (OpenCV axes). */
  viewmat: number[];
  /** Ks[0], row-major 3x3, for a 648x420 image. */
  intrinsics: number[];
}

export async function readRasterLoadSource(dataDir = DEFAULT_DATA_DIR): Promise<RasterLoadSource> {
  const file = resolve(dataDir, RASTER_LOAD_SOURCE);
  const arrays = await readNpz(file);
  const means3d = npzArray(arrays, 'means3d', file, [-1, 3], ['float32']).data as Float32Array;
  const colors = npzArray(arrays, 'colors', file, [means3d.length / 3, 3], ['uint8']).data as Uint8Array;
  const viewmats = npzArray(arrays, 'viewmats', file, [-1, 4, 4], ['float32', 'float64']);
  const Ks = npzArray(arrays, 'Ks', file, [-1, 3, 3], ['float32', 'float64']);
  const width = npyNumbers(npzArray(arrays, 'width', file, []), file, 'width')[0];
  const height = npyNumbers(npzArray(arrays, 'height', file, []), file, 'height')[0];
  if (width !== SOURCE_WIDTH || height !== SOURCE_HEIGHT) {
    throw badInput(file, `expected intrinsics for a ${SOURCE_WIDTH}x${SOURCE_HEIGHT} image, the file says ${width}x${height}`);
  }
  const viewmat = [...npyNumbers(viewmats, file, 'viewmats').subarray(0, 16)];
  const intrinsics = [...npyNumbers(Ks, file, 'Ks').subarray(0, 9)];
  if (intrinsics[1] !== 0 || intrinsics[3] !== 0 || intrinsics[6] !== 0 || intrinsics[7] !== 0 || intrinsics[8] !== 1) {
    throw badInput(file, `Ks[0] is not a pinhole matrix [[fx 0 cx] [0 fy cy] [0 0 1]]: ${intrinsics.join(' ')}`);
  }
  return { means3d, colors, viewmat, intrinsics };
}

/** Activated values of one splat, float64, as RASTER_LOAD.md states them. */
export interface RasterLoadSplat {
  anchor: number;
  mean: [number, number, number];
  /** World-space standard deviations. */
  scale: [number, number, number];
  /** Unit quaternion (w, x, y, z). */
  quat: [number, number, number, number];
  opacity: number;
  /** [coefficient k][channel c], 16 x 3; k = 0 is the DC term. */
  sh: Float64Array;
}

export function rasterLoadSplat(source: RasterLoadSource, i: number): RasterLoadSplat {
  const out: RasterLoadSplat = { anchor: 0, mean: [0, 0, 0], scale: [0, 0, 0], quat: [0, 0, 0, 0], opacity: 0, sh: new Float64Array(SH_COEFFICIENTS * 3) };
  rasterLoadSplatInto(source, i, out);
  return out;
}

/** rasterLoadSplat into a reused object (the 2M-splat build allocates nothing per splat). */
export function rasterLoadSplatInto(source: RasterLoadSource, i: number, out: RasterLoadSplat): void {
  const P = source.means3d.length / 3;
  const j = Math.min(Math.floor(rasterLoadUniform(i, 0) * P), P - 1);
  out.anchor = j;
  for (let a = 0; a < 3; a++) out.mean[a] = source.means3d[3 * j + a] + 0.04 * (rasterLoadUniform(i, 1 + a) - 0.5);
  for (let a = 0; a < 3; a++) out.scale[a] = 0.002 + 0.008 * rasterLoadUniform(i, 4 + a);
  for (let a = 0; a < 4; a++) out.quat[a] = rasterLoadUniform(i, 7 + a) - 0.5;
  const norm = Math.hypot(out.quat[0], out.quat[1], out.quat[2], out.quat[3]);
  for (let a = 0; a < 4; a++) out.quat[a] /= norm;
  out.opacity = 0.1 + 0.8 * rasterLoadUniform(i, 11);
  for (let ch = 0; ch < 3; ch++) out.sh[ch] = (source.colors[3 * j + ch] / 255 - 0.5) / SH_C0;
  for (let c = 1; c < SH_COEFFICIENTS; c++) {
    for (let ch = 0; ch < 3; ch++) out.sh[3 * c + ch] = 0.05 * (rasterLoadUniform(i, 12 + (c - 1) * 3 + ch) - 0.5);
  }
}

export interface RasterLoad {
  splats: SplatSet;
  camera: PinholeCamera;
  near: number;
  background: [number, number, number];
}

/**
 * The loads `bench raster --load` times (docs/benchmarks.md): `fixed` is RASTER_LOAD.md's;
 * `bigsplat` stresses what real phone captures do (issue 14): the same splats with every scale
 * x4, seen at 1920x1440 (the intrinsics scaled from the source's 648x420 per axis), so splats
 * cover many tiles and the image has 2.7x the pixels.
 */
export const RASTER_LOADS = {
  fixed: { width: RASTER_LOAD_WIDTH, height: RASTER_LOAD_HEIGHT, scale: 1 },
  bigsplat: { width: 1920, height: 1440, scale: 4 },
} as const;
export type RasterLoadName = keyof typeof RASTER_LOADS;

export function rasterLoadCamera(source: RasterLoadSource, load: RasterLoadName = 'fixed'): PinholeCamera {
  const { width, height } = RASTER_LOADS[load];
  const sx = width / SOURCE_WIDTH;
  const sy = height / SOURCE_HEIGHT;
  const K = source.intrinsics;
  return { width, height, fx: K[0] * sx, cx: K[2] * sx, fy: K[4] * sy, cy: K[5] * sy, worldToCamera: [...source.viewmat] };
}

export function buildRasterLoad(source: RasterLoadSource, options: { count?: number; load?: RasterLoadName } = {}): RasterLoad {
  const count = options.count ?? RASTER_LOAD_COUNT;
  const load = options.load ?? 'fixed';
  const scaleFactor = RASTER_LOADS[load].scale;
  // Past 2,000,000 the same formulas continue (u(i, k) is defined while i * 64 + k < 2^32): the
  // scale runs (10M splats) use that extension; the first 2M splats are the fixed load.
  const limit = Math.floor(2 ** 32 / 64);
  if (!Number.isSafeInteger(count) || count < 0 || count > limit) {
    throw new RangeError(`raster load: count must be an integer in 0..${limit}, got ${count}`);
  }
  const splats = emptySplats(count, SH_DEGREE);
  const s = rasterLoadSplat(source, 0);
  for (let i = 0; i < count; i++) {
    rasterLoadSplatInto(source, i, s);
    for (let a = 0; a < 3; a++) {
      splats.means[3 * i + a] = s.mean[a];
      splats.logScales[3 * i + a] = Math.log(s.scale[a] * scaleFactor);
    }
    for (let a = 0; a < 4; a++) splats.quats[4 * i + a] = s.quat[a];
    splats.opacityLogits[i] = Math.log(s.opacity / (1 - s.opacity));
    splats.sh.set(s.sh, i * SH_COEFFICIENTS * 3);
  }
  return { splats, camera: rasterLoadCamera(source, load), near: RASTER_LOAD_NEAR, background: [0, 0, 0] };
}

/** Reads the source from `dataDir` (default ../shared/data) and builds the load. */
export async function loadRasterLoad(options: { count?: number; dataDir?: string; load?: RasterLoadName } = {}): Promise<RasterLoad> {
  return buildRasterLoad(await readRasterLoadSource(options.dataDir), options);
}
