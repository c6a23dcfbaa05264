/**
 * COLMAP datasets: `<root>/sparse/0/` (or `<root>/sparse/`) with cameras, images and points3D in
 * binary (preferred, as 3DGS does) or text form, and the photos in `<root>/images/`. Views are
 * sorted by image name; distorted models (SIMPLE_RADIAL, RADIAL, OPENCV, FULL_OPENCV and the
 * fisheyes OPENCV_FISHEYE, SIMPLE_RADIAL_FISHEYE, RADIAL_FISHEYE) become pinhole views of the same
 * size (distortion.ts chooses the intrinsics) whose images loadViewImage undistorts.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { parseCamerasBin, parseImagesBin, parsePoints3DBin } from './colmap-binary.js';
import { SUPPORTED_COLMAP_MODELS, type ColmapCamera, type ColmapModel, type ColmapPoints } from './colmap-model.js';
import { parseCamerasText, parseImagesText, parsePoints3DText } from './colmap-text.js';
import type { Distortion } from './types.js';
import { checkLens, isPinholeLens, lensOf, undistortedPinhole } from './distortion.js';
import { worldToCameraFromQuaternion } from './pose.js';
import { byName, checkViewImage, isFile, mapLimit, resolveInside, type SourceDataset, type SourceView } from './source-view.js';

export interface ColmapModelLocation {
  dir: string;
  kind: 'bin' | 'txt';
}

/** `<root>/sparse/0` then `<root>/sparse`; binary before text. Null when neither holds a model. */
export async function findColmapModel(root: string): Promise<ColmapModelLocation | null> {
  for (const dir of [path.join(root, 'sparse', '0'), path.join(root, 'sparse')]) {
    if (await isFile(path.join(dir, 'cameras.bin'))) return { dir, kind: 'bin' };
    if (await isFile(path.join(dir, 'cameras.txt'))) return { dir, kind: 'txt' };
  }
  return null;
}

async function readModelFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw badInput(file, code === 'ENOENT' ? 'COLMAP model file not found' : `cannot read COLMAP model file: ${(error as Error).message}`);
  }
}

/** Parses a model folder. points3D is optional (an empty point set when absent); cameras and images are not. */
export async function readColmapModel(dir: string, kind?: 'bin' | 'txt'): Promise<ColmapModel> {
  const format = kind ?? ((await isFile(path.join(dir, 'cameras.bin'))) ? 'bin' : 'txt');
  const files = {
    cameras: path.join(dir, `cameras.${format}`),
    images: path.join(dir, `images.${format}`),
    points: path.join(dir, `points3D.${format}`),
  };
  const bytes = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  const text = (b: Buffer): string => b.toString('utf8');
  const camerasRaw = await readModelFile(files.cameras);
  const cameras = format === 'bin' ? parseCamerasBin(bytes(camerasRaw), files.cameras) : parseCamerasText(text(camerasRaw), files.cameras);
  const imagesRaw = await readModelFile(files.images);
  const images =
    format === 'bin' ? parseImagesBin(bytes(imagesRaw), files.images, cameras) : parseImagesText(text(imagesRaw), files.images, cameras);
  let points: ColmapPoints = { ids: new Float64Array(0), positions: new Float64Array(0), colors: new Uint8Array(0), errors: new Float64Array(0) };
  if (await isFile(files.points)) {
    const pointsRaw = await readModelFile(files.points);
    points = format === 'bin' ? parsePoints3DBin(bytes(pointsRaw), files.points) : parsePoints3DText(text(pointsRaw), files.points);
  }
  return { cameras, images, points, files };
}

/**
 * Pinhole intrinsics (full resolution) and, for distorted models, the distortion to remove: the
 * lens is checked against the camera's image size, and the pinhole is distortion.ts's choice.
 */
export function colmapIntrinsics(camera: ColmapCamera, file: string): { fx: number; fy: number; cx: number; cy: number; distortion?: Distortion } {
  const where = `${camera.source} (camera ${camera.id})`;
  if (!SUPPORTED_COLMAP_MODELS.includes(camera.model)) {
    throw badInput(
      file,
      `${where} uses ${camera.model}, which is not supported (supported: ${SUPPORTED_COLMAP_MODELS.join(', ')}); undistort the images first with "colmap image_undistorter"`,
    );
  }
  const p = camera.params;
  if (camera.model === 'SIMPLE_PINHOLE') return { fx: p[0], fy: p[0], cx: p[1], cy: p[2] };
  if (camera.model === 'PINHOLE') return { fx: p[0], fy: p[1], cx: p[2], cy: p[3] };
  const distortion: Distortion = { model: camera.model, params: [...p], width: camera.width, height: camera.height };
  const lens = lensOf(distortion, file, where);
  checkLens(lens, camera.width, camera.height, file, where);
  if (isPinholeLens(lens)) return { fx: lens.fx, fy: lens.fy, cx: lens.cx, cy: lens.cy };
  return { ...undistortedPinhole(lens, camera.width, camera.height), distortion };
}

export async function readColmapDataset(root: string, location: ColmapModelLocation): Promise<SourceDataset> {
  const model = await readColmapModel(location.dir, location.kind);
  const imagesDir = path.join(root, 'images');
  const images = [...model.images].sort(byName);
  const views = await mapLimit(images, 16, async (image): Promise<SourceView> => {
    const where = image.source;
    const camera = model.cameras.get(image.cameraId)!; // checkImage guarantees it
    const intrinsics = colmapIntrinsics(camera, model.files.cameras);
    const imagePath = resolveInside(imagesDir, image.name, model.files.images, where);
    await checkViewImage(imagePath, model.files.images, `${where} ("${image.name}", camera ${camera.id})`, camera);
    const pinhole: PinholeCamera = {
      width: camera.width,
      height: camera.height,
      fx: intrinsics.fx,
      fy: intrinsics.fy,
      cx: intrinsics.cx,
      cy: intrinsics.cy,
      worldToCamera: worldToCameraFromQuaternion(image.qvec, image.tvec),
    };
    const view: SourceView = { name: image.name, imagePath, camera: pinhole, file: model.files.images, source: where };
    if (intrinsics.distortion) view.distortion = intrinsics.distortion;
    return view;
  });
  const source: SourceDataset = { root, format: 'colmap', views };
  if (model.points.ids.length > 0) source.points = { positions: Float32Array.from(model.points.positions), colors: model.points.colors };
  return source;
}
