/**
 * Writes COLMAP models in binary and text form (COLMAP 3.8's own layouts, src/base/reconstruction.cc
 * WriteCamerasBinary / WriteImagesBinary / WritePoints3DBinary): our mapper's model (capture/
 * sfm-argonaut.ts), and the tests' datasets, which also cross-check the two parsers.
 * A point's track (image id, index of its 2D point in that image) is written where given, else empty
 * (the loaders skip tracks; COLMAP's own tools read them).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../formats/atomic-file.js';
import { COLMAP_CAMERA_MODELS, type ColmapCamera, type ColmapImage, type ColmapPoints } from './colmap-model.js';

/** Per point: image id, point2D index pairs, flattened. */
export type ColmapTracks = readonly Uint32Array[];

export interface ModelToWrite {
  cameras: ColmapCamera[];
  images: ColmapImage[];
  points: ColmapPoints;
  /** One per point, in the points' order (default: every track empty). */
  tracks?: ColmapTracks;
}

class Writer {
  private parts: Buffer[] = [];
  u8(v: number): this { const b = Buffer.alloc(1); b[0] = v; this.parts.push(b); return this; }
  u32(v: number): this { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.parts.push(b); return this; }
  i32(v: number): this { const b = Buffer.alloc(4); b.writeInt32LE(v); this.parts.push(b); return this; }
  u64(v: number): this { const b = Buffer.alloc(8); b.writeBigUInt64LE(v < 0 ? 0xffffffffffffffffn : BigInt(v)); this.parts.push(b); return this; }
  f64(v: number): this { const b = Buffer.alloc(8); b.writeDoubleLE(v); this.parts.push(b); return this; }
  str(s: string): this { this.parts.push(Buffer.from(`${s}\0`, 'utf8')); return this; }
  bytes(): Uint8Array { return new Uint8Array(Buffer.concat(this.parts)); }
}

export function camerasBin(cameras: readonly ColmapCamera[]): Uint8Array {
  const w = new Writer().u64(cameras.length);
  for (const c of cameras) {
    const model = COLMAP_CAMERA_MODELS.find((m) => m.name === c.model)!;
    w.u32(c.id).i32(model.id).u64(c.width).u64(c.height);
    for (const p of c.params) w.f64(p);
  }
  return w.bytes();
}

export function imagesBin(images: readonly ColmapImage[]): Uint8Array {
  const w = new Writer().u64(images.length);
  for (const im of images) {
    w.u32(im.id);
    for (const q of im.qvec) w.f64(q);
    for (const t of im.tvec) w.f64(t);
    w.u32(im.cameraId).str(im.name).u64(im.point3DIds.length);
    for (let k = 0; k < im.point3DIds.length; k++) w.f64(im.xy[2 * k]).f64(im.xy[2 * k + 1]).u64(im.point3DIds[k]);
  }
  return w.bytes();
}

export function points3DBin(points: ColmapPoints, tracks?: ColmapTracks): Uint8Array {
  const w = new Writer().u64(points.ids.length);
  for (let i = 0; i < points.ids.length; i++) {
    w.u64(points.ids[i]);
    for (let k = 0; k < 3; k++) w.f64(points.positions[i * 3 + k]);
    for (let k = 0; k < 3; k++) w.u8(points.colors[i * 3 + k]);
    const track = tracks?.[i] ?? new Uint32Array(0);
    w.f64(points.errors[i]).u64(track.length / 2);
    for (const v of track) w.u32(v);
  }
  return w.bytes();
}

/** Numbers as JavaScript prints them: shortest round-trip form, so text and binary agree exactly. */
export function camerasText(cameras: readonly ColmapCamera[]): string {
  return ['# Camera list', ...cameras.map((c) => [c.id, c.model, c.width, c.height, ...c.params].join(' '))].join('\n') + '\n';
}

export function imagesText(images: readonly ColmapImage[]): string {
  const lines = ['# Image list with two lines of data per image:'];
  for (const im of images) {
    lines.push([im.id, ...im.qvec, ...im.tvec, im.cameraId, im.name].join(' '));
    const obs: string[] = [];
    for (let k = 0; k < im.point3DIds.length; k++) obs.push(`${im.xy[2 * k]} ${im.xy[2 * k + 1]} ${im.point3DIds[k]}`);
    lines.push(obs.join(' '));
  }
  return lines.join('\n') + '\n';
}

export function points3DText(points: ColmapPoints, tracks?: ColmapTracks): string {
  const lines = ['# 3D point list'];
  for (let i = 0; i < points.ids.length; i++) {
    const p = points.positions;
    lines.push([points.ids[i], p[i * 3], p[i * 3 + 1], p[i * 3 + 2], points.colors[i * 3], points.colors[i * 3 + 1], points.colors[i * 3 + 2], points.errors[i], ...(tracks?.[i] ?? [])].join(' '));
  }
  return lines.join('\n') + '\n';
}

/**
 * Writes `<dir>` (usually `<root>/sparse/0`) in the given form, each file atomically (a reader
 * never sees half a file). images is written last: the loaders take a folder with it as a model.
 */
export async function writeColmapModel(dir: string, model: ModelToWrite, kind: 'bin' | 'txt'): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (kind === 'bin') {
    await writeFileAtomic(path.join(dir, 'cameras.bin'), camerasBin(model.cameras));
    await writeFileAtomic(path.join(dir, 'points3D.bin'), points3DBin(model.points, model.tracks));
    await writeFileAtomic(path.join(dir, 'images.bin'), imagesBin(model.images));
  } else {
    await writeFileAtomic(path.join(dir, 'cameras.txt'), camerasText(model.cameras));
    await writeFileAtomic(path.join(dir, 'points3D.txt'), points3DText(model.points, model.tracks));
    await writeFileAtomic(path.join(dir, 'images.txt'), imagesText(model.images));
  }
}

/** A ColmapImage with no observations. */
export function colmapImage(id: number, name: string, cameraId: number, qvec: [number, number, number, number], tvec: [number, number, number]): ColmapImage {
  return { id, name, cameraId, qvec, tvec, xy: new Float64Array(0), point3DIds: new Float64Array(0), source: '' };
}
