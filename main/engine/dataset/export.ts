/**
 * A posed dataset (anything loadDataset reads) written for other tools:
 *   transforms  nerfstudio-style transforms.json: camera-to-world in OpenGL axes, intrinsics global
 *               when every view shares them (else per frame), OPENCV k1 k2 p1 p2 for distorted
 *               lenses, `file_path` keeping the image's own file name, the dataset's split as
 *               train_filenames / test_filenames when it has one, SfM points as sparse_pc.ply.
 *   colmap      a COLMAP text model in <out>/sparse/0 (cameras.txt, images.txt, points3D.txt) with
 *               the original lens model (SIMPLE_RADIAL stays SIMPLE_RADIAL), images in <out>/images.
 * Images are copied (default) or referenced where they are. Round trips through our own loaders
 * give the same cameras (tests/main/engine/dataset/export.test.ts).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { copyFileAtomic, writeFileAtomic } from '../formats/atomic-file.js';
import { loadDataset, type Dataset, type DatasetView } from './dataset.js';
import { lensOf } from './distortion.js';
import { quaternionFromRotation } from './pose.js';

export type ExportFormat = 'transforms' | 'colmap';

export interface ExportOptions {
  format: ExportFormat;
  /** Copy the images beside the export (default), or point at them where they are (transforms only). */
  images?: 'copy' | 'reference';
  /** Each view's camera as exported (camera refinement's refined cameras); default the dataset's own. */
  camera?: (view: DatasetView) => DatasetView['camera'];
}

export interface ExportResult {
  /** transforms.json, or the COLMAP model folder. */
  out: string;
  format: ExportFormat;
  views: number;
  points: number;
  imagesCopied: number;
}

/** A view's name as a safe relative path: no absolute part, no "..". */
function safeRelative(name: string): string {
  const parts = name.split(/[\\/]+/).filter((s) => s && s !== '.' && s !== '..');
  return parts.join('/') || 'image';
}

async function copyImages(dataset: Dataset, imagesDir: string): Promise<Map<DatasetView, string>> {
  const names = new Map<DatasetView, string>();
  const used = new Set<string>();
  for (const view of dataset.views) {
    const name = safeRelative(view.name);
    if (used.has(name)) throw badInput(view.imagePath, `two views would be copied to the same file images/${name}`);
    used.add(name);
    const dest = path.join(imagesDir, ...name.split('/'));
    await mkdir(path.dirname(dest), { recursive: true });
    await copyFileAtomic(view.imagePath, dest);
    names.set(view, name);
  }
  return names;
}

/** Binary little-endian PLY with x y z (float) and red green blue (uchar), what nerfstudio writes. */
export function pointsPly(points: { positions: Float32Array; colors: Uint8Array }): Uint8Array {
  const n = points.positions.length / 3;
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${n}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n`;
  const body = Buffer.alloc(n * 15);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) body.writeFloatLE(points.positions[3 * i + k], i * 15 + 4 * k);
    for (let k = 0; k < 3; k++) body[i * 15 + 12 + k] = points.colors[3 * i + k];
  }
  return new Uint8Array(Buffer.concat([Buffer.from(header, 'latin1'), body]));
}

type Json = Record<string, unknown>;

/** Intrinsics of one view in transforms.json's keys. */
function intrinsicsJson(view: DatasetView): Json {
  const c = view.camera;
  const out: Json = { w: c.width, h: c.height, fl_x: c.fx, fl_y: c.fy, cx: c.cx, cy: c.cy };
  if (view.distortion) {
    // the original lens at this view's size (a fisheye's pinhole has other focal lengths)
    const lens = lensOf(view.distortion, view.imagePath, view.name);
    const sx = c.width / view.distortion.width;
    const sy = c.height / view.distortion.height;
    Object.assign(out, { fl_x: lens.fx * sx, fl_y: lens.fy * sy, cx: lens.cx * sx, cy: lens.cy * sy });
    if (lens.projection === 'fisheye') Object.assign(out, { k1: lens.k1, k2: lens.k2, k3: lens.k3, k4: lens.k4 });
    else if (lens.k4 !== 0 || lens.k5 !== 0 || lens.k6 !== 0) throw new ArgonautError('invalid_argument', `${view.name}: ${view.distortion.model} with k4..k6 (a rational model) has no transforms.json form; export --format colmap keeps it`);
    else Object.assign(out, { k1: lens.k1, k2: lens.k2, p1: lens.p1, p2: lens.p2, ...(lens.k3 !== 0 ? { k3: lens.k3 } : {}) });
  }
  return out;
}

/**
 * World-to-camera (OpenCV) -> camera-to-world (OpenGL: y up, z backward) as 4 rows: the exact
 * inverse of the loaders' conversion (openGlCameraToWorldToOpenCvWorldToCamera). That conversion
 * takes R^T for the inverse rotation, so the centre here is -R^-1 t with a true inverse: files whose
 * rotations are a little off orthonormal (Blender's, at float32) still come back unchanged.
 */
export function openGlCameraToWorld(worldToCamera: readonly number[]): number[][] {
  const m = worldToCamera;
  const r = [[m[0], m[1], m[2]], [m[4], m[5], m[6]], [m[8], m[9], m[10]]];
  const det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
  const inverse = [
    [r[1][1] * r[2][2] - r[1][2] * r[2][1], r[0][2] * r[2][1] - r[0][1] * r[2][2], r[0][1] * r[1][2] - r[0][2] * r[1][1]],
    [r[1][2] * r[2][0] - r[1][0] * r[2][2], r[0][0] * r[2][2] - r[0][2] * r[2][0], r[0][2] * r[1][0] - r[0][0] * r[1][2]],
    [r[1][0] * r[2][1] - r[1][1] * r[2][0], r[0][1] * r[2][0] - r[0][0] * r[2][1], r[0][0] * r[1][1] - r[0][1] * r[1][0]],
  ].map((row) => row.map((v) => v / det));
  const t = [m[3], m[7], m[11]];
  const rows: number[][] = [];
  for (let i = 0; i < 3; i++) {
    const centre = -(inverse[i][0] * t[0] + inverse[i][1] * t[1] + inverse[i][2] * t[2]);
    rows.push([r[0][i], -r[1][i], -r[2][i], centre]); // rotation transposed, camera y and z flipped
  }
  rows.push([0, 0, 0, 1]);
  return rows;
}

/** transforms.json has one camera_model for every frame: PINHOLE, OPENCV, or OPENCV_FISHEYE. */
function transformsCameraModel(dataset: Dataset): string {
  const models = new Set(dataset.views.map((v) => (v.distortion ? (lensOf(v.distortion).projection === 'fisheye' ? 'OPENCV_FISHEYE' : 'OPENCV') : 'PINHOLE')));
  if (models.has('OPENCV_FISHEYE') && models.size > 1) {
    throw new ArgonautError('invalid_argument', 'the dataset mixes fisheye and perspective cameras, which one transforms.json cannot hold (one camera_model); export --format colmap keeps them');
  }
  return models.has('OPENCV_FISHEYE') ? 'OPENCV_FISHEYE' : models.has('OPENCV') ? 'OPENCV' : 'PINHOLE';
}

async function exportTransforms(dataset: Dataset, outPath: string, images: 'copy' | 'reference'): Promise<ExportResult> {
  const file = outPath.endsWith('.json') ? outPath : path.join(outPath, 'transforms.json');
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const copied = images === 'copy' ? await copyImages(dataset, path.join(dir, 'images')) : undefined;
  const filePath = (view: DatasetView): string => (copied ? `images/${copied.get(view)}` : path.relative(dir, view.imagePath).split(path.sep).join('/'));
  const perView = dataset.views.map(intrinsicsJson);
  const shared = perView.every((j) => JSON.stringify(j) === JSON.stringify(perView[0]));
  const json: Json = { camera_model: transformsCameraModel(dataset) };
  if (shared) Object.assign(json, perView[0]);
  json.frames = dataset.views.map((view, i) => ({ file_path: filePath(view), transform_matrix: openGlCameraToWorld(view.camera.worldToCamera), ...(shared ? {} : perView[i]) }));
  if (dataset.views.some((v) => v.split === 'test')) {
    json.train_filenames = dataset.views.filter((v) => v.split === 'train').map(filePath);
    json.test_filenames = dataset.views.filter((v) => v.split === 'test').map(filePath);
  }
  const points = dataset.points?.positions.length ?? 0;
  if (dataset.points && points > 0) {
    await writeFileAtomic(path.join(dir, 'sparse_pc.ply'), pointsPly(dataset.points));
    json.ply_file_path = 'sparse_pc.ply';
  }
  await writeFileAtomic(file, `${JSON.stringify(json, null, 2)}\n`);
  return { out: file, format: 'transforms', views: dataset.views.length, points: points / 3, imagesCopied: copied?.size ?? 0 };
}

/** COLMAP's model and parameters for a view: its original lens when distorted, else PINHOLE. */
function colmapCamera(view: DatasetView): { model: string; params: number[] } {
  if (view.distortion) return { model: view.distortion.model, params: [...view.distortion.params] };
  const c = view.camera;
  return { model: 'PINHOLE', params: [c.fx, c.fy, c.cx, c.cy] };
}

async function exportColmap(dataset: Dataset, outDir: string): Promise<ExportResult> {
  const modelDir = path.join(outDir, 'sparse', '0');
  await mkdir(modelDir, { recursive: true });
  const names = await copyImages(dataset, path.join(outDir, 'images'));
  const cameraIds = new Map<string, number>();
  const cameraLines: string[] = ['# Camera list with one line of data per camera:', '#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]'];
  const imageLines: string[] = ['# Image list with two lines of data per image:', '#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME', '#   POINTS2D[] as (X, Y, POINT3D_ID)'];
  dataset.views.forEach((view, i) => {
    const { model, params } = colmapCamera(view);
    const line = [model, view.camera.width, view.camera.height, ...params].join(' ');
    let id = cameraIds.get(line);
    if (id === undefined) {
      id = cameraIds.size + 1;
      cameraIds.set(line, id);
      cameraLines.push(`${id} ${line}`);
    }
    const m = view.camera.worldToCamera;
    imageLines.push([i + 1, ...quaternionFromRotation(m), m[3], m[7], m[11], id, names.get(view)].join(' '), '');
  });
  const pointLines = ['# 3D point list with one line of data per point:', '#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)'];
  const n = (dataset.points?.positions.length ?? 0) / 3;
  for (let i = 0; i < n; i++) {
    const p = dataset.points!.positions;
    const c = dataset.points!.colors;
    pointLines.push(`${i + 1} ${p[3 * i]} ${p[3 * i + 1]} ${p[3 * i + 2]} ${c[3 * i]} ${c[3 * i + 1]} ${c[3 * i + 2]} 0`);
  }
  await writeFileAtomic(path.join(modelDir, 'cameras.txt'), `${cameraLines.join('\n')}\n`);
  await writeFileAtomic(path.join(modelDir, 'images.txt'), `${imageLines.join('\n')}\n`);
  await writeFileAtomic(path.join(modelDir, 'points3D.txt'), `${pointLines.join('\n')}\n`);
  return { out: modelDir, format: 'colmap', views: dataset.views.length, points: n, imagesCopied: names.size };
}

/** Loads `datasetPath` (full resolution, the dataset's own split only) and writes it as `format`. */
export async function exportDataset(datasetPath: string, outPath: string, options: ExportOptions): Promise<ExportResult> {
  const loaded = await loadDataset(datasetPath, { testEvery: 0 });
  const cameraOf = options.camera;
  const dataset = cameraOf ? { ...loaded, views: loaded.views.map((v) => ({ ...v, camera: cameraOf(v) })) } : loaded;
  const out = path.resolve(outPath);
  if (options.format === 'transforms') return exportTransforms(dataset, out, options.images ?? 'copy');
  if (options.format === 'colmap') {
    if (options.images === 'reference') throw new ArgonautError('invalid_argument', 'a COLMAP export copies its images into <out>/images (COLMAP reads images from one folder); use --images copy');
    return exportColmap(dataset, out);
  }
  throw new ArgonautError('invalid_argument', `unknown export format "${String(options.format)}" (expected transforms or colmap)`);
}
