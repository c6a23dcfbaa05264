/**
 * instant-ngp / nerfstudio `transforms.json`, and the frame parsing NeRF-synthetic reuses.
 *
 * Intrinsics come from the top level and may be overridden per frame: fl_x, fl_y, cx, cy, w, h, or
 * camera_angle_x / camera_angle_y; k1 k2 k3 p1 p2 (OPENCV distortion) or, with `camera_model:
 * OPENCV_FISHEYE`, k1..k4 (fisheye), undistorted on load to distortion.ts's pinhole.
 * `transform_matrix` is camera-to-world in OpenGL axes. `file_path` is relative to the JSON and
 * may omit the extension. instant-ngp's `scale`/`offset`/`aabb_scale` only place the scene in its
 * own unit cube and are ignored. A frame's `mask_path` (nerfstudio) names its mask (masks.ts). nerfstudio's `train_filenames`/`test_filenames` (or
 * `val_filenames`) define the split when present; its `ply_file_path` points are loaded.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';
import { openGlCameraToWorldToOpenCvWorldToCamera } from '../../../shared/scene/camera.js';
import { checkLens, lensOf, undistortedPinhole } from './distortion.js';
import type { Distortion } from './types.js';
import { readPlyPoints } from './ply-points.js';
import { requireFinite, requireRotation } from './pose.js';
import { byName, checkViewImage, isFile, mapLimit, type SourceDataset, type SourceView } from './source-view.js';

type Json = Record<string, unknown>;

const INTRINSIC_KEYS = ['fl_x', 'fl_y', 'cx', 'cy', 'w', 'h', 'camera_angle_x', 'camera_angle_y', 'k1', 'k2', 'k3', 'k4', 'p1', 'p2'] as const;
const IMAGE_EXTENSIONS = ['.png', '.jpg', '.jpeg', '.PNG', '.JPG', '.JPEG'];

/** Reads and parses a JSON file into an object, or throws `bad_input` naming it. */
export async function readJsonObject(file: string): Promise<Json> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw badInput(file, code === 'ENOENT' ? 'file not found' : `cannot read: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badInput(file, `not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badInput(file, 'expected a JSON object at the top level');
  return value as Json;
}

function optionalNumber(file: string, where: string, obj: Json, key: string): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw badInput(file, `${where}: ${key} must be a number, found ${JSON.stringify(v)}`);
  requireFinite(file, where, key, [v]);
  return v;
}

/** A 4x4 (or 3x4) array of finite numbers -> row-major 16 numbers. */
function readMatrix(file: string, where: string, value: unknown): number[] {
  const rows = Array.isArray(value) ? value : null;
  if (!rows || (rows.length !== 4 && rows.length !== 3) || !rows.every((r) => Array.isArray(r) && r.length === 4)) {
    throw badInput(file, `${where}: transform_matrix must be a 4x4 array of numbers`);
  }
  const m = (rows as unknown[][]).flat();
  if (!m.every((x) => typeof x === 'number')) throw badInput(file, `${where}: transform_matrix must contain only numbers`);
  const out = m as number[];
  if (out.length === 12) out.push(0, 0, 0, 1);
  requireFinite(file, where, 'transform_matrix', out);
  requireRotation(file, where, 'transform_matrix', out);
  return out;
}

/** `file_path` as written, else with an image extension added. */
async function resolveFramePath(dir: string, filePath: string, file: string, where: string): Promise<string> {
  const base = path.resolve(dir, filePath);
  if (await isFile(base)) return base;
  for (const ext of IMAGE_EXTENSIONS) if (await isFile(base + ext)) return base + ext;
  throw badInput(base, `image file not found (${where} of ${file}; also tried ${IMAGE_EXTENSIONS.slice(0, 3).join(', ')})`);
}

interface Coefficients {
  k1: number;
  k2: number;
  k3: number;
  k4: number;
  p1: number;
  p2: number;
}

/**
 * A frame's lens as COLMAP's model: OPENCV (k1 k2 p1 p2; with k3, nerfstudio's OPENCV, it is
 * FULL_OPENCV), OPENCV_FISHEYE (k1..k4), PINHOLE (no coefficients allowed); undefined when there
 * is nothing to undistort. Checked against the image (distortion.ts's checkLens).
 */
function transformsDistortion(model: string, k: Coefficients, intrinsics: number[], width: number, height: number, file: string, where: string): Distortion | undefined {
  let distortion: Distortion;
  if (model === 'OPENCV_FISHEYE') {
    if (k.p1 !== 0 || k.p2 !== 0) throw badInput(file, `${where}: OPENCV_FISHEYE has no tangential terms, but p1/p2 are ${k.p1}, ${k.p2}`);
    distortion = { model: 'OPENCV_FISHEYE', params: [...intrinsics, k.k1, k.k2, k.k3, k.k4], width, height };
  } else {
    const any = [k.k1, k.k2, k.k3, k.k4, k.p1, k.p2].some((c) => c !== 0);
    if (!any) return undefined;
    if (model === 'PINHOLE') throw badInput(file, `${where}: camera_model PINHOLE has no distortion, but k1 k2 k3 k4 p1 p2 are ${[k.k1, k.k2, k.k3, k.k4, k.p1, k.p2].join(' ')}`);
    if (k.k4 !== 0) throw badInput(file, `${where}: k4 is a fisheye term (camera_model OPENCV_FISHEYE); OPENCV takes k1 k2 k3 p1 p2`);
    distortion =
      k.k3 !== 0
        ? { model: 'FULL_OPENCV', params: [...intrinsics, k.k1, k.k2, k.p1, k.p2, k.k3, 0, 0, 0], width, height }
        : { model: 'OPENCV', params: [...intrinsics, k.k1, k.k2, k.p1, k.p2], width, height };
  }
  checkLens(lensOf(distortion, file, where), width, height, file, where);
  return distortion;
}

export interface FrameOptions {
  /** Split every frame of this file belongs to (NeRF-synthetic); otherwise left to the caller. */
  split?: 'train' | 'test';
}

/** The frames of one transforms file -> full-resolution views, in file order. */
export async function readTransformsFrames(file: string, json: Json, options: FrameOptions = {}): Promise<SourceView[]> {
  const dir = path.dirname(file);
  const frames = json.frames;
  if (!Array.isArray(frames) || frames.length === 0) throw badInput(file, 'has no "frames" array (or it is empty)');
  const model = json.camera_model ?? 'OPENCV';
  if (model !== 'OPENCV' && model !== 'PINHOLE' && model !== 'OPENCV_FISHEYE') {
    throw badInput(file, `camera_model ${JSON.stringify(model)} is not supported (supported: OPENCV, PINHOLE, OPENCV_FISHEYE)`);
  }
  const global: Json = {};
  for (const key of INTRINSIC_KEYS) if (json[key] !== undefined) global[key] = json[key];
  return mapLimit(frames, 16, async (frame: unknown, index): Promise<SourceView> => {
    const where = `frames[${index}]`;
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) throw badInput(file, `${where} is not an object`);
    const f = frame as Json;
    if (typeof f.file_path !== 'string' || f.file_path.length === 0) throw badInput(file, `${where}: file_path must be a non-empty string`);
    const c2w = readMatrix(file, where, f.transform_matrix);
    const intr: Json = { ...global };
    for (const key of INTRINSIC_KEYS) if (f[key] !== undefined) intr[key] = f[key];
    const num = (key: string): number | undefined => optionalNumber(file, where, intr, key);
    const imagePath = await resolveFramePath(dir, f.file_path, file, where);
    const declaredW = num('w');
    const declaredH = num('h');
    const declared = declaredW !== undefined && declaredH !== undefined ? { width: declaredW, height: declaredH } : undefined;
    const { width, height } = await checkViewImage(imagePath, file, where, declared);
    const angleX = num('camera_angle_x');
    const angleY = num('camera_angle_y');
    const fx = num('fl_x') ?? (angleX !== undefined ? (0.5 * width) / Math.tan(0.5 * angleX) : undefined);
    if (fx === undefined) throw badInput(file, `${where}: no focal length (fl_x or camera_angle_x)`);
    const fy = num('fl_y') ?? (angleY !== undefined ? (0.5 * height) / Math.tan(0.5 * angleY) : fx);
    if (!(fx > 0) || !(fy > 0)) throw badInput(file, `${where}: focal length (${fx}, ${fy}) must be > 0`);
    const cx = num('cx') ?? width / 2;
    const cy = num('cy') ?? height / 2;
    const distortion = transformsDistortion(model, { k1: num('k1') ?? 0, k2: num('k2') ?? 0, k3: num('k3') ?? 0, k4: num('k4') ?? 0, p1: num('p1') ?? 0, p2: num('p2') ?? 0 }, [fx, fy, cx, cy], width, height, file, where);
    const pinhole = distortion ? undistortedPinhole(lensOf(distortion, file, where), width, height) : { fx, fy, cx, cy };
    const view: SourceView = {
      name: path.relative(dir, imagePath).split(path.sep).join('/'),
      imagePath,
      camera: { width, height, ...pinhole, worldToCamera: openGlCameraToWorldToOpenCvWorldToCamera(c2w) },
      file,
      source: where,
    };
    if (distortion) view.distortion = distortion;
    if (f.mask_path !== undefined) {
      if (typeof f.mask_path !== 'string' || f.mask_path.length === 0) throw badInput(file, `${where}: mask_path must be a non-empty string`);
      view.maskPath = path.resolve(dir, f.mask_path);
    }
    if (options.split) view.split = options.split;
    return view;
  });
}

function filenameList(file: string, json: Json, key: string): Set<string> | undefined {
  const list = json[key];
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) throw badInput(file, `${key} must be an array of file names`);
  return new Set((list as string[]).map((s) => path.resolve(path.dirname(file), s)));
}

export async function readTransformsJson(file: string): Promise<SourceDataset> {
  const json = await readJsonObject(file);
  const views = (await readTransformsFrames(file, json)).sort(byName);
  const test = filenameList(file, json, 'test_filenames') ?? filenameList(file, json, 'val_filenames');
  const train = filenameList(file, json, 'train_filenames');
  if (test || train) {
    for (const view of views) view.split = test ? (test.has(view.imagePath) ? 'test' : 'train') : train!.has(view.imagePath) ? 'train' : 'test';
  }
  const source: SourceDataset = { root: path.dirname(file), format: 'transforms', views };
  if (json.ply_file_path !== undefined) {
    if (typeof json.ply_file_path !== 'string') throw badInput(file, 'ply_file_path must be a string');
    source.points = await readPlyPoints(path.resolve(path.dirname(file), json.ply_file_path));
  }
  return source;
}
