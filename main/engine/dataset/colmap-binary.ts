/**
 * COLMAP binary model files (cameras.bin, images.bin, points3D.bin), little endian, as COLMAP's
 * WriteCamerasBinary / WriteImagesBinary / WritePoints3DBinary lay them out. Every read is bounds
 * checked and every record count is checked against the bytes left before anything is allocated,
 * so truncated or corrupted files fail with "<file>: truncated at byte N (record ...)" and never
 * crash, hang or exhaust memory.
 */
import { badInput } from '../../../shared/rpc/errors.js';
import {
  cameraModelById,
  checkCamera,
  checkImage,
  checkPoints,
  checkUniqueIds,
  type ColmapCamera,
  type ColmapImage,
  type ColmapPoints,
} from './colmap-model.js';

const utf8 = new TextDecoder();

/** A bounds-checked little-endian reader that knows which record it is in, for its error messages. */
class Cursor {
  offset = 0;
  private readonly view: DataView;
  record = 'header';

  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  need(n: number, field: string): void {
    if (n > this.remaining) {
      throw badInput(this.file, `truncated at byte ${this.bytes.length} (${this.record}: ${field} needs ${n} bytes at byte ${this.offset})`);
    }
  }

  u8(field: string): number {
    this.need(1, field);
    return this.bytes[this.offset++];
  }

  u32(field: string): number {
    this.need(4, field);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  i32(field: string): number {
    this.need(4, field);
    const v = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return v;
  }

  /** uint64 as a Number; values past 2^53 are corrupt for every field that uses this. */
  u64(field: string): number {
    this.need(8, field);
    const lo = this.view.getUint32(this.offset, true);
    const hi = this.view.getUint32(this.offset + 4, true);
    if (hi >= 0x200000) throw badInput(this.file, `${this.record}: ${field} at byte ${this.offset} is too large (corrupt file?)`);
    this.offset += 8;
    return hi * 2 ** 32 + lo;
  }

  /** A point3D id: uint64 where all ones (written from -1) means "no point". */
  pointId(field: string): number {
    this.need(8, field);
    const lo = this.view.getUint32(this.offset, true);
    const hi = this.view.getUint32(this.offset + 4, true);
    this.offset += 8;
    if (lo === 0xffffffff && hi === 0xffffffff) return -1;
    return hi * 2 ** 32 + lo;
  }

  f64(field: string): number {
    this.need(8, field);
    const v = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return v;
  }

  cstring(field: string): string {
    const end = this.bytes.indexOf(0, this.offset);
    if (end < 0) throw badInput(this.file, `truncated at byte ${this.bytes.length} (${this.record}: ${field} has no terminating NUL)`);
    const s = utf8.decode(this.bytes.subarray(this.offset, end));
    this.offset = end + 1;
    return s;
  }

  /** A record count, refused when even minimal records could not fit in the bytes left. */
  count(what: string, minRecordBytes: number): number {
    const n = this.u64(`number of ${what}`);
    if (n * minRecordBytes > this.remaining) {
      throw badInput(
        this.file,
        `truncated at byte ${this.bytes.length} (${this.record}: ${n} ${what} need at least ${n * minRecordBytes} bytes, ${this.remaining} remain)`,
      );
    }
    return n;
  }

  end(): void {
    if (this.remaining !== 0) throw badInput(this.file, `${this.remaining} unexpected bytes after the last record, at byte ${this.offset}`);
  }
}

export function parseCamerasBin(bytes: Uint8Array, file: string): Map<number, ColmapCamera> {
  const c = new Cursor(bytes, file);
  const n = c.count('cameras', 24);
  const list: ColmapCamera[] = [];
  for (let i = 0; i < n; i++) {
    c.record = `record ${i + 1} of ${n}`;
    const id = c.u32('camera_id');
    const modelId = c.i32('model_id');
    const model = cameraModelById(modelId);
    if (!model) throw badInput(file, `${c.record} (camera ${id}): unknown camera model id ${modelId}`);
    const width = c.u64('width');
    const height = c.u64('height');
    c.need(8 * model.params, 'params');
    const params = Array.from({ length: model.params }, () => c.f64('params'));
    const camera: ColmapCamera = { id, model: model.name, width, height, params, source: `record ${i + 1}` };
    checkCamera(file, camera);
    list.push(camera);
  }
  c.end();
  checkUniqueIds(file, 'camera', list);
  return new Map(list.map((cam) => [cam.id, cam]));
}

export function parseImagesBin(bytes: Uint8Array, file: string, cameras: Map<number, ColmapCamera>): ColmapImage[] {
  const c = new Cursor(bytes, file);
  const n = c.count('images', 4 + 7 * 8 + 4 + 1 + 8);
  const images: ColmapImage[] = [];
  for (let i = 0; i < n; i++) {
    c.record = `record ${i + 1} of ${n}`;
    const id = c.u32('image_id');
    const qvec = [c.f64('qw'), c.f64('qx'), c.f64('qy'), c.f64('qz')] as [number, number, number, number];
    const tvec = [c.f64('tx'), c.f64('ty'), c.f64('tz')] as [number, number, number];
    const cameraId = c.u32('camera_id');
    const name = c.cstring('name');
    c.record = `record ${i + 1} of ${n} ("${name}")`;
    const count = c.count('points2D', 24);
    const xy = new Float64Array(count * 2);
    const point3DIds = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      xy[2 * k] = c.f64('x');
      xy[2 * k + 1] = c.f64('y');
      point3DIds[k] = c.pointId('point3D_id');
    }
    const image: ColmapImage = { id, qvec, tvec, cameraId, name, xy, point3DIds, source: `record ${i + 1}` };
    checkImage(file, image, cameras);
    images.push(image);
  }
  c.end();
  checkUniqueIds(file, 'image', images);
  return images;
}

export function parsePoints3DBin(bytes: Uint8Array, file: string): ColmapPoints {
  const c = new Cursor(bytes, file);
  const n = c.count('points', 8 + 24 + 3 + 8 + 8);
  const points: ColmapPoints = {
    ids: new Float64Array(n),
    positions: new Float64Array(n * 3),
    colors: new Uint8Array(n * 3),
    errors: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    c.record = `record ${i + 1} of ${n}`;
    points.ids[i] = c.u64('point3D_id');
    for (let k = 0; k < 3; k++) points.positions[i * 3 + k] = c.f64('xyz');
    for (let k = 0; k < 3; k++) points.colors[i * 3 + k] = c.u8('rgb');
    points.errors[i] = c.f64('error');
    const track = c.count('track elements', 8);
    c.offset += track * 8; // (image_id, point2D_idx) pairs: not needed for training
  }
  c.end();
  checkPoints(file, points);
  return points;
}
