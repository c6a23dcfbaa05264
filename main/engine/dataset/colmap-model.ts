/**
 * A COLMAP sparse model as parsed from its binary or text files, before it becomes a dataset, and
 * the checks both parsers share. Conventions are COLMAP's: world-to-camera quaternion
 * (qw, qx, qy, qz) + translation in OpenCV axes, pixel centres at +0.5.
 */
import { badInput } from '../../../shared/rpc/errors.js';
import { LENS_MODELS } from './lens.js';
import { requireFinite } from './pose.js';

/** Every model COLMAP defines (id = index in cameras.bin), with its parameter count. */
export const COLMAP_CAMERA_MODELS = [
  { id: 0, name: 'SIMPLE_PINHOLE', params: 3 }, // f, cx, cy
  { id: 1, name: 'PINHOLE', params: 4 }, // fx, fy, cx, cy
  { id: 2, name: 'SIMPLE_RADIAL', params: 4 }, // f, cx, cy, k
  { id: 3, name: 'RADIAL', params: 5 }, // f, cx, cy, k1, k2
  { id: 4, name: 'OPENCV', params: 8 }, // fx, fy, cx, cy, k1, k2, p1, p2
  { id: 5, name: 'OPENCV_FISHEYE', params: 8 }, // fx, fy, cx, cy, k1, k2, k3, k4
  { id: 6, name: 'FULL_OPENCV', params: 12 }, // fx, fy, cx, cy, k1, k2, p1, p2, k3, k4, k5, k6
  { id: 7, name: 'FOV', params: 5 },
  { id: 8, name: 'SIMPLE_RADIAL_FISHEYE', params: 4 }, // f, cx, cy, k
  { id: 9, name: 'RADIAL_FISHEYE', params: 5 }, // f, cx, cy, k1, k2
  { id: 10, name: 'THIN_PRISM_FISHEYE', params: 12 },
  { id: 11, name: 'RAD_TAN_THIN_PRISM_FISHEYE', params: 16 },
] as const;

/** The models the loader turns into pinhole views (undistorting the images where needed). */
export const SUPPORTED_COLMAP_MODELS = ['SIMPLE_PINHOLE', 'PINHOLE', ...LENS_MODELS];

export interface ColmapCamera {
  id: number;
  model: string;
  width: number;
  height: number;
  params: number[];
  /** "record 3" or "line 5": where it was declared. */
  source: string;
}

export interface ColmapImage {
  id: number;
  /** qw, qx, qy, qz: world-to-camera rotation (normalized on use). */
  qvec: [number, number, number, number];
  tvec: [number, number, number];
  cameraId: number;
  name: string;
  /** 2D observations in pixels: x, y pairs. */
  xy: Float64Array;
  /** The 3D point of each observation, -1 for none. */
  point3DIds: Float64Array;
  source: string;
}

export interface ColmapPoints {
  ids: Float64Array;
  /** x, y, z triples. */
  positions: Float64Array;
  /** 8-bit r, g, b triples. */
  colors: Uint8Array;
  errors: Float64Array;
}

export interface ColmapModel {
  cameras: Map<number, ColmapCamera>;
  images: ColmapImage[];
  points: ColmapPoints;
  files: { cameras: string; images: string; points: string };
}

/** Largest width or height we accept; guards against corrupt values before anything is allocated. */
const MAX_DIMENSION = 1 << 17;

export function cameraModelById(id: number): (typeof COLMAP_CAMERA_MODELS)[number] | undefined {
  return COLMAP_CAMERA_MODELS.find((m) => m.id === id);
}

export function cameraModelByName(name: string): (typeof COLMAP_CAMERA_MODELS)[number] | undefined {
  return COLMAP_CAMERA_MODELS.find((m) => m.name === name);
}

/** Value checks every camera must pass, whichever file it came from. */
export function checkCamera(file: string, camera: ColmapCamera): void {
  const where = `${camera.source} (camera ${camera.id}, ${camera.model})`;
  for (const [field, value] of [['width', camera.width], ['height', camera.height]] as const) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_DIMENSION) {
      throw badInput(file, `${where}: ${field} ${value} is not an image size (1..${MAX_DIMENSION})`);
    }
  }
  requireFinite(file, where, 'params', camera.params);
  const focalCount = camera.model.startsWith('SIMPLE_') || camera.model === 'RADIAL' || camera.model === 'RADIAL_FISHEYE' ? 1 : 2;
  for (let i = 0; i < focalCount; i++) {
    if (!(camera.params[i] > 0)) throw badInput(file, `${where}: focal length ${camera.params[i]} must be > 0`);
  }
}

export function checkImage(file: string, image: ColmapImage, cameras: Map<number, ColmapCamera>): void {
  const where = `${image.source} (image ${image.id}, "${image.name}")`;
  if (image.name.length === 0) throw badInput(file, `${image.source} (image ${image.id}): empty image name`);
  requireFinite(file, where, 'qvec', image.qvec);
  requireFinite(file, where, 'tvec', image.tvec);
  if (Math.hypot(...image.qvec) < 1e-9) throw badInput(file, `${where}: rotation quaternion has zero length`);
  if (!cameras.has(image.cameraId)) throw badInput(file, `${where}: camera id ${image.cameraId} is not in the cameras file`);
}

/** Duplicate ids would silently shadow each other in the maps built from them. */
export function checkUniqueIds(file: string, what: string, records: readonly { id: number; source: string }[]): void {
  const seen = new Map<number, string>();
  for (const r of records) {
    const first = seen.get(r.id);
    if (first !== undefined) throw badInput(file, `${r.source}: duplicate ${what} id ${r.id} (also ${first})`);
    seen.set(r.id, r.source);
  }
}

export function checkPoints(file: string, points: ColmapPoints): void {
  for (let i = 0; i < points.positions.length; i++) {
    if (!Number.isFinite(points.positions[i])) {
      throw badInput(file, `point ${points.ids[Math.floor(i / 3)]}: coordinate ${'xyz'[i % 3]} is ${points.positions[i]}, expected a finite number`);
    }
  }
}
