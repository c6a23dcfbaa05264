/**
 * COLMAP 3.8's `database.db`, written and read through sql.js (SQLite compiled to WebAssembly:
 * installs from the npm registry alone, no native addon). The schema is the one
 * `colmap database_creator` makes (user_version 3800; tests/main/engine/sfm/colmap-database.test.ts
 * compares the two), so COLMAP's matchers and `mapper` read what we write unchanged.
 *
 * Blobs are little-endian, row-major, as COLMAP stores them on x86 and ARM:
 *   keypoints    float32 rows x 4 (x, y, scale, orientation; first pixel's centre at 0.5)
 *   descriptors  uint8 rows x 128
 *   matches      uint32 rows x 2 (keypoint index in image1, in image2), image1's id < image2's
 *   two_view_geometries  the verified pairs' inliers and models (colmap-two-view.ts)
 *   cameras.params float64, in the model's order (COLMAP_CAMERA_MODELS)
 * The whole database lives in memory and is written with a temp file + rename, so a crash never
 * leaves half a database for COLMAP to read.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Database as SqlDatabase, SqlJsStatic } from 'sql.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { writeFileAtomic } from '../formats/atomic-file.js';
import { canonicalTwoView, float64Blob, twoViewBlobs, type DatabaseTwoViewGeometry } from './colmap-two-view.js';

export type { DatabaseTwoViewGeometry };

/** COLMAP's camera model ids and parameter names (src/base/camera_models.h, 3.8). */
export const COLMAP_CAMERA_MODELS = {
  SIMPLE_PINHOLE: { id: 0, params: ['f', 'cx', 'cy'] },
  PINHOLE: { id: 1, params: ['fx', 'fy', 'cx', 'cy'] },
  SIMPLE_RADIAL: { id: 2, params: ['f', 'cx', 'cy', 'k'] },
  RADIAL: { id: 3, params: ['f', 'cx', 'cy', 'k1', 'k2'] },
  OPENCV: { id: 4, params: ['fx', 'fy', 'cx', 'cy', 'k1', 'k2', 'p1', 'p2'] },
  OPENCV_FISHEYE: { id: 5, params: ['fx', 'fy', 'cx', 'cy', 'k1', 'k2', 'k3', 'k4'] },
  FULL_OPENCV: { id: 6, params: ['fx', 'fy', 'cx', 'cy', 'k1', 'k2', 'p1', 'p2', 'k3', 'k4', 'k5', 'k6'] },
} as const;
export type ColmapCameraModel = keyof typeof COLMAP_CAMERA_MODELS;

/** COLMAP's image pair key: image ids are below this (images.image_id_check). */
export const MAX_IMAGE_ID = 2147483647;
/** PRAGMA user_version of COLMAP 3.8's databases. */
export const COLMAP_SCHEMA_VERSION = 3800;
/** ImageReader.default_focal_length_factor: the focal length guessed without EXIF, times the long side. */
export const DEFAULT_FOCAL_LENGTH_FACTOR = 1.2;

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS cameras (camera_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, model INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL, params BLOB, prior_focal_length INTEGER NOT NULL)',
  `CREATE TABLE IF NOT EXISTS images (image_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name TEXT NOT NULL UNIQUE, camera_id INTEGER NOT NULL, prior_qw REAL, prior_qx REAL, prior_qy REAL, prior_qz REAL, prior_tx REAL, prior_ty REAL, prior_tz REAL, CONSTRAINT image_id_check CHECK(image_id >= 0 and image_id < ${MAX_IMAGE_ID}), FOREIGN KEY(camera_id) REFERENCES cameras(camera_id))`,
  'CREATE UNIQUE INDEX IF NOT EXISTS index_name ON images(name)',
  'CREATE TABLE IF NOT EXISTS keypoints (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE)',
  'CREATE TABLE IF NOT EXISTS descriptors (image_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, FOREIGN KEY(image_id) REFERENCES images(image_id) ON DELETE CASCADE)',
  'CREATE TABLE IF NOT EXISTS matches (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB)',
  'CREATE TABLE IF NOT EXISTS two_view_geometries (pair_id INTEGER PRIMARY KEY NOT NULL, rows INTEGER NOT NULL, cols INTEGER NOT NULL, data BLOB, config INTEGER NOT NULL, F BLOB, E BLOB, H BLOB, qvec BLOB, tvec BLOB)',
  `PRAGMA user_version = ${COLMAP_SCHEMA_VERSION}`,
];

export interface DatabaseCamera {
  model: ColmapCameraModel;
  width: number;
  height: number;
  /** In the model's order; default: COLMAP's guess without EXIF (defaultCameraParams). */
  params?: Float64Array;
  /** Whether the focal length is known (EXIF, calibration); false lets COLMAP refine it freely. */
  priorFocalLength?: boolean;
}

export interface DatabaseImage {
  name: string;
  /** 1-based index into the database's cameras. */
  cameraId: number;
  /** 4 per keypoint (x, y, scale, orientation). */
  keypoints: Float32Array;
  /** 128 per keypoint. */
  descriptors: Uint8Array;
}

export interface DatabaseMatches {
  /** 1-based image ids, different. */
  image1: number;
  image2: number;
  /** [i0, j0, i1, j1, ...]: keypoint i of image1 matches keypoint j of image2. */
  matches: Uint32Array;
}

export interface ColmapDatabaseContent {
  cameras: DatabaseCamera[];
  /** Image id = index + 1 (COLMAP's own numbering from 1). */
  images: DatabaseImage[];
  matches: DatabaseMatches[];
  /** Geometric verification's result per pair (none: COLMAP's matcher is to verify them). */
  twoViewGeometries?: DatabaseTwoViewGeometry[];
}

/**
 * COLMAP's initial camera (Camera::InitializeWithId): principal point at the centre, no distortion,
 * focal `f` (from EXIF, capture/exif-focal.ts), by default its guess without EXIF, 1.2 x the long side.
 */
export function defaultCameraParams(model: ColmapCameraModel, width: number, height: number, f = DEFAULT_FOCAL_LENGTH_FACTOR * Math.max(width, height)): Float64Array {
  const names = COLMAP_CAMERA_MODELS[model].params;
  const values: Record<string, number> = { f, fx: f, fy: f, cx: width / 2, cy: height / 2 };
  return Float64Array.from(names, (n: string) => values[n] ?? 0);
}

/** COLMAP's pair key: id1 * 2147483647 + id2 with id1 < id2 (swapped when needed). */
export function pairId(image1: number, image2: number): number {
  const [a, b] = image1 < image2 ? [image1, image2] : [image2, image1];
  const id = a * MAX_IMAGE_ID + b;
  // beyond 2^53 a double cannot hold the key exactly (a set of ~4 million images)
  if (!Number.isSafeInteger(id)) throw new ArgonautError('invalid_argument', `colmap database: image ids ${a} and ${b} make a pair id beyond 2^53`);
  return id;
}

/** The two image ids of a pair key. */
export function imagesOfPair(id: number): [number, number] {
  const second = id % MAX_IMAGE_ID;
  return [(id - second) / MAX_IMAGE_ID, second];
}

let sqlJs: Promise<SqlJsStatic> | undefined;
/** sql.js's WebAssembly build, loaded once (from node_modules: the bundles keep sql.js external). */
function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= (async () => {
    const require = createRequire(import.meta.url);
    const init = require('sql.js') as (config?: { wasmBinary?: ArrayBuffer }) => Promise<SqlJsStatic>;
    const wasm = await readFile(require.resolve('sql.js/dist/sql-wasm.wasm'));
    return init({ wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer });
  })();
  return sqlJs;
}

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function check(file: string, content: ColmapDatabaseContent): void {
  const fail = (what: string) => new ArgonautError('invalid_argument', `${file}: ${what}`, { file });
  content.cameras.forEach((c, k) => {
    const model = COLMAP_CAMERA_MODELS[c.model];
    if (!model) throw fail(`camera ${k + 1} has model ${c.model}, not one of ${Object.keys(COLMAP_CAMERA_MODELS).join(', ')}`);
    if (c.params && c.params.length !== model.params.length) throw fail(`camera ${k + 1} (${c.model}) has ${c.params.length} params, the model has ${model.params.length}`);
  });
  content.images.forEach((im, k) => {
    if (!Number.isInteger(im.cameraId) || im.cameraId < 1 || im.cameraId > content.cameras.length) throw fail(`image ${im.name} names camera ${im.cameraId} of ${content.cameras.length}`);
    if (im.keypoints.length % 4 !== 0 || im.descriptors.length !== (im.keypoints.length / 4) * 128) throw fail(`image ${k + 1} (${im.name}): ${im.keypoints.length} keypoint values and ${im.descriptors.length} descriptor bytes do not make rows of 4 and 128`);
  });
  const checkPairs = (what: string, list: readonly { image1: number; image2: number; values: Uint32Array }[]) => {
    const seen = new Set<number>();
    const n = content.images.length;
    for (const m of list) {
      if (m.image1 === m.image2 || [m.image1, m.image2].some((id) => !Number.isInteger(id) || id < 1 || id > n)) throw fail(`${what} between images ${m.image1} and ${m.image2} of ${n}`);
      const id = pairId(m.image1, m.image2);
      if (seen.has(id)) throw fail(`images ${m.image1} and ${m.image2} are ${what === 'matches' ? 'matched' : 'verified'} twice`);
      seen.add(id);
      if (m.values.length % 2 !== 0) throw fail(`${what} between images ${m.image1} and ${m.image2}: ${m.values.length} values, not pairs`);
    }
  };
  checkPairs('matches', content.matches.map((m) => ({ ...m, values: m.matches })));
  const geometries = content.twoViewGeometries ?? [];
  checkPairs('two-view geometries', geometries.map((g) => ({ ...g, values: g.inlierMatches })));
  for (const g of geometries) {
    // UNDEFINED (0) .. MULTIPLE (8): TwoViewGeometry::ConfigurationType
    if (!Number.isInteger(g.config) || g.config < 0 || g.config > 8) throw fail(`two-view geometry of images ${g.image1} and ${g.image2}: config ${g.config} is not one of COLMAP's (0-8)`);
  }
}

/** The matches in COLMAP's order: the lower image id's keypoints in the first column. */
function ordered(m: DatabaseMatches): Uint32Array {
  if (m.image1 < m.image2) return m.matches;
  const out = new Uint32Array(m.matches.length);
  for (let k = 0; k < out.length; k += 2) [out[k], out[k + 1]] = [m.matches[k + 1], m.matches[k]];
  return out;
}

/** Writes a new database (any file there is replaced, atomically). */
export async function writeColmapDatabase(file: string, content: ColmapDatabaseContent): Promise<void> {
  check(file, content);
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    for (const statement of SCHEMA) db.run(statement);
    db.run('BEGIN');
    const camera = db.prepare('INSERT INTO cameras (camera_id, model, width, height, params, prior_focal_length) VALUES (?, ?, ?, ?, ?, ?)');
    content.cameras.forEach((c, k) => camera.run([k + 1, COLMAP_CAMERA_MODELS[c.model].id, c.width, c.height, bytesOf(c.params ?? defaultCameraParams(c.model, c.width, c.height)), c.priorFocalLength ? 1 : 0]));
    camera.free();
    const image = db.prepare('INSERT INTO images (image_id, name, camera_id) VALUES (?, ?, ?)');
    const keypoints = db.prepare('INSERT INTO keypoints (image_id, rows, cols, data) VALUES (?, ?, 4, ?)');
    const descriptors = db.prepare('INSERT INTO descriptors (image_id, rows, cols, data) VALUES (?, ?, 128, ?)');
    content.images.forEach((im, k) => {
      image.run([k + 1, im.name, im.cameraId]);
      keypoints.run([k + 1, im.keypoints.length / 4, bytesOf(im.keypoints)]);
      descriptors.run([k + 1, im.descriptors.length / 128, bytesOf(im.descriptors)]);
    });
    for (const s of [image, keypoints, descriptors]) s.free();
    const matches = db.prepare('INSERT INTO matches (pair_id, rows, cols, data) VALUES (?, ?, 2, ?)');
    for (const m of content.matches) matches.run([pairId(m.image1, m.image2), m.matches.length / 2, bytesOf(ordered(m))]);
    matches.free();
    const geometry = db.prepare('INSERT INTO two_view_geometries (pair_id, rows, cols, data, config, F, E, H, qvec, tvec) VALUES (?, ?, 2, ?, ?, ?, ?, ?, ?, ?)');
    for (const g of content.twoViewGeometries ?? []) {
      const row = canonicalTwoView(g);
      const b = twoViewBlobs(row);
      geometry.run([pairId(row.image1, row.image2), b.rows, b.data, row.config, b.F, b.E, b.H, b.qvec, b.tvec]);
    }
    geometry.free();
    db.run('COMMIT');
    await writeFileAtomic(file, db.export());
  } finally {
    db.close();
  }
}

export interface ReadColmapDatabase {
  cameras: (Required<DatabaseCamera> & { id: number })[];
  images: (DatabaseImage & { id: number })[];
  matches: DatabaseMatches[];
  /** Verified pairs (two_view_geometries with inliers): ids and inlier counts, and the config COLMAP gave. */
  verified: { image1: number; image2: number; inliers: number; config: number }[];
  /** Every two_view_geometries row, inliers and models decoded (zeros where a blob is empty). */
  twoViewGeometries: (Required<Omit<DatabaseTwoViewGeometry, 'rotation' | 'translation'>> & { qvec: Float64Array; tvec: Float64Array })[];
}

/**
 * Keypoints as x, y, scale, orientation. COLMAP's own extractor stores 6 columns (x, y and the
 * affine shape a11 a12 a21 a22); its scale is the mean of the two column norms and its orientation
 * atan2(a21, a11) (FeatureKeypoint::ComputeScale / ComputeOrientation).
 */
function asFourColumns(file: string, imageId: number, cols: number, data: Float32Array): Float32Array {
  if (cols === 4) return data;
  if (cols !== 6) throw new ArgonautError('bad_input', `${file}: image ${imageId}'s keypoints have ${cols} columns (COLMAP writes 4 or 6)`, { file });
  const n = data.length / 6;
  const out = new Float32Array(4 * n);
  for (let k = 0; k < n; k++) {
    const [x, y, a11, a12, a21, a22] = data.subarray(6 * k, 6 * k + 6);
    out.set([x, y, (Math.hypot(a11, a21) + Math.hypot(a12, a22)) / 2, Math.atan2(a21, a11)], 4 * k);
  }
  return out;
}

/** Reads a COLMAP database (ours or COLMAP's): the capture's resume and report, and the tests. */
export async function readColmapDatabase(file: string): Promise<ReadColmapDatabase> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new ArgonautError('bad_input', `${file}: cannot read the COLMAP database: ${(error as Error).message}`, { file });
  }
  const SQL = await loadSqlJs();
  let db: SqlDatabase;
  try {
    db = new SQL.Database(bytes);
  } catch (error) {
    throw new ArgonautError('bad_input', `${file}: not an SQLite database: ${(error as Error).message}`, { file });
  }
  try {
    const rows = (sql: string): Record<string, unknown>[] => {
      const out: Record<string, unknown>[] = [];
      const statement = db.prepare(sql);
      while (statement.step()) out.push(statement.getAsObject());
      statement.free();
      return out;
    };
    const blob = (v: unknown): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array(0));
    // copies: sql.js's blobs may not be aligned for the typed views
    const floats = (v: unknown) => new Float32Array(Uint8Array.from(blob(v)).buffer);
    const models = Object.entries(COLMAP_CAMERA_MODELS);
    const cameras = rows('SELECT camera_id, model, width, height, params, prior_focal_length FROM cameras ORDER BY camera_id').map((r) => {
      const model = models.find(([, m]) => m.id === r.model)?.[0];
      if (!model) throw new ArgonautError('bad_input', `${file}: camera ${String(r.camera_id)} has model id ${String(r.model)}, which we do not read`, { file });
      return { id: Number(r.camera_id), model: model as ColmapCameraModel, width: Number(r.width), height: Number(r.height), params: new Float64Array(Uint8Array.from(blob(r.params)).buffer), priorFocalLength: r.prior_focal_length === 1 };
    });
    const keypoints = new Map(rows('SELECT image_id, rows, cols, data FROM keypoints').map((r) => [Number(r.image_id), asFourColumns(file, Number(r.image_id), Number(r.cols), floats(r.data))]));
    const descriptors = new Map(rows('SELECT image_id, data FROM descriptors').map((r) => [Number(r.image_id), Uint8Array.from(blob(r.data))]));
    const images = rows('SELECT image_id, name, camera_id FROM images ORDER BY image_id').map((r) => {
      const id = Number(r.image_id);
      return { id, name: String(r.name), cameraId: Number(r.camera_id), keypoints: keypoints.get(id) ?? new Float32Array(0), descriptors: descriptors.get(id) ?? new Uint8Array(0) };
    });
    const matches = rows('SELECT pair_id, data FROM matches ORDER BY pair_id').map((r) => {
      const [image1, image2] = imagesOfPair(Number(r.pair_id));
      return { image1, image2, matches: new Uint32Array(Uint8Array.from(blob(r.data)).buffer) };
    });
    const twoViewGeometries = rows('SELECT pair_id, data, config, F, E, H, qvec, tvec FROM two_view_geometries ORDER BY pair_id').map((r) => {
      const [image1, image2] = imagesOfPair(Number(r.pair_id));
      const where = (column: string) => `${file}: two_view_geometries ${column} of images ${image1} and ${image2}`;
      const matrix = (column: string) => float64Blob(r[column] as Uint8Array | null, 9, where(column));
      return {
        image1, image2, config: Number(r.config), inlierMatches: new Uint32Array(Uint8Array.from(blob(r.data)).buffer),
        fundamental: matrix('F'), essential: matrix('E'), homography: matrix('H'),
        qvec: float64Blob(r.qvec as Uint8Array | null, 4, where('qvec')), tvec: float64Blob(r.tvec as Uint8Array | null, 3, where('tvec')),
      };
    });
    const verified = twoViewGeometries.filter((g) => g.inlierMatches.length > 0).map((g) => ({ image1: g.image1, image2: g.image2, inliers: g.inlierMatches.length / 2, config: g.config }));
    return { cameras, images, matches, verified, twoViewGeometries };
  } catch (error) {
    // sql.js opens lazily: a file that is not SQLite fails at the first query
    if (error instanceof ArgonautError) throw error;
    throw new ArgonautError('bad_input', `${file}: not a COLMAP database: ${(error as Error).message}`, { file });
  } finally {
    db.close();
  }
}
