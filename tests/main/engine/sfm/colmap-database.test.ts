import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { afterAll, describe, expect, it } from 'vitest';
import { freshSeed, rng } from '../../../helpers/random.js';
import {
  COLMAP_CAMERA_MODELS, COLMAP_SCHEMA_VERSION, MAX_IMAGE_ID, defaultCameraParams, imagesOfPair, pairId, readColmapDatabase, writeColmapDatabase,
  type ColmapDatabaseContent,
} from '../../../../main/engine/sfm/colmap-database.js';

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'colmap-db-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function sql(): Promise<SqlJsStatic> {
  const require = createRequire(import.meta.url);
  const init = require('sql.js') as (c?: object) => Promise<SqlJsStatic>;
  return init({ wasmBinary: (await readFile(require.resolve('sql.js/dist/sql-wasm.wasm'))).buffer });
}

/** Each table's columns as PRAGMA table_info gives them (name, type, not null, primary key). */
async function schemaOf(file: string): Promise<Record<string, string[]>> {
  const db = new (await sql()).Database(await readFile(file));
  const out: Record<string, string[]> = {};
  for (const table of ['cameras', 'images', 'keypoints', 'descriptors', 'matches', 'two_view_geometries']) {
    out[table] = (db.exec(`PRAGMA table_info(${table})`)[0]?.values ?? []).map((c) => `${String(c[1])} ${String(c[2])} notnull=${String(c[3])} pk=${String(c[5])}`);
  }
  out.version = [String(db.exec('PRAGMA user_version')[0].values[0][0])];
  out.indexes = (db.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'")[0]?.values ?? []).map((v) => String(v[0]));
  db.close();
  return out;
}

function randomContent(seed: number): ColmapDatabaseContent {
  const r = rng(seed);
  const image = (name: string, n: number) => ({
    name,
    cameraId: 1,
    keypoints: Float32Array.from({ length: 4 * n }, () => r() * 600),
    descriptors: Uint8Array.from({ length: 128 * n }, () => Math.floor(r() * 256)),
  });
  const images = [image('clip/a.jpg', 17), image('clip/b.jpg', 9), image('photos/c.jpg', 0)];
  return {
    cameras: [{ model: 'SIMPLE_RADIAL', width: 640, height: 360 }, { model: 'OPENCV', width: 500, height: 400, params: Float64Array.from({ length: 8 }, () => r()), priorFocalLength: true }],
    images: images.map((im, k) => ({ ...im, cameraId: k < 2 ? 1 : 2 })),
    matches: [
      { image1: 1, image2: 2, matches: Uint32Array.from([0, 3, 5, 8, 16, 0]) },
      // given the other way round: stored with image 2's keypoints in the second column
      { image1: 3, image2: 1, matches: new Uint32Array(0) },
    ],
  };
}

describe('COLMAP database writer', () => {
  it('pair ids are COLMAP\'s: id1 * 2147483647 + id2 with id1 < id2, either order given', () => {
    expect(pairId(1, 2)).toBe(MAX_IMAGE_ID + 2);
    expect(pairId(7, 3)).toBe(3 * MAX_IMAGE_ID + 7);
    expect(imagesOfPair(pairId(12345, 678))).toEqual([678, 12345]);
    expect(() => pairId(2 ** 23, 2 ** 23 + 1)).toThrow(/beyond 2\^53/);
  });

  it('camera parameters: COLMAP\'s model ids and its guess without EXIF (1.2 x the long side, centred)', () => {
    expect(COLMAP_CAMERA_MODELS.SIMPLE_RADIAL.id).toBe(2);
    expect(COLMAP_CAMERA_MODELS.OPENCV.id).toBe(4);
    expect(Array.from(defaultCameraParams('SIMPLE_RADIAL', 640, 360))).toEqual([768, 320, 180, 0]);
    expect(Array.from(defaultCameraParams('PINHOLE', 300, 500))).toEqual([600, 600, 150, 250]);
    expect(defaultCameraParams('FULL_OPENCV', 10, 10)).toHaveLength(12);
  });

  it('reads back what it wrote, byte for byte, with the blobs COLMAP expects', async () => {
    const seed = freshSeed();
    const content = randomContent(seed);
    const file = path.join(await tempDir(), 'database.db');
    await writeColmapDatabase(file, content);
    const back = await readColmapDatabase(file);
    expect(back.cameras.map((c) => [c.id, c.model, c.width, c.height, c.priorFocalLength])).toEqual([[1, 'SIMPLE_RADIAL', 640, 360, false], [2, 'OPENCV', 500, 400, true]]);
    expect(Array.from(back.cameras[0].params)).toEqual([768, 320, 180, 0]);
    expect(Array.from(back.cameras[1].params)).toEqual(Array.from(content.cameras[1].params!));
    back.images.forEach((im, k) => {
      expect([im.id, im.name, im.cameraId], `seed ${seed}`).toEqual([k + 1, content.images[k].name, content.images[k].cameraId]);
      expect(Array.from(im.keypoints)).toEqual(Array.from(content.images[k].keypoints));
      expect(Array.from(im.descriptors)).toEqual(Array.from(content.images[k].descriptors));
    });
    expect(back.matches.map((m) => [m.image1, m.image2, Array.from(m.matches)])).toEqual([[1, 2, [0, 3, 5, 8, 16, 0]], [1, 3, []]]);
    // the raw rows: rows x cols as COLMAP reads them, the pair key, the blob sizes
    const db = new (await sql()).Database(await readFile(file));
    expect(db.exec('SELECT image_id, rows, cols, length(data) FROM keypoints ORDER BY image_id')[0].values).toEqual([[1, 17, 4, 17 * 16], [2, 9, 4, 9 * 16], [3, 0, 4, 0]]);
    expect(db.exec('SELECT rows, cols, length(data) FROM descriptors WHERE image_id = 1')[0].values).toEqual([[17, 128, 17 * 128]]);
    expect(db.exec('SELECT pair_id, rows, cols FROM matches ORDER BY pair_id')[0].values).toEqual([[MAX_IMAGE_ID + 2, 3, 2], [MAX_IMAGE_ID + 3, 0, 2]]);
    expect(db.exec('SELECT model, params FROM cameras WHERE camera_id = 1')[0].values[0][0]).toBe(2);
    db.close();
  });

  it('a second image of a swapped pair stays with its keypoints (columns swapped)', async () => {
    const content = randomContent(1);
    content.matches = [{ image1: 2, image2: 1, matches: Uint32Array.from([4, 7, 1, 2]) }];
    const file = path.join(await tempDir(), 'database.db');
    await writeColmapDatabase(file, content);
    expect((await readColmapDatabase(file)).matches.map((m) => [m.image1, m.image2, Array.from(m.matches)])).toEqual([[1, 2, [7, 4, 2, 1]]]);
  });

  it("two_view_geometries: COLMAP's row layout (row-major float64 F, E, H; qvec w x y z; tvec), a swapped pair inverted, no blobs without inliers", async () => {
    const seed = freshSeed();
    const r = rng(seed);
    const content = randomContent(seed);
    const random3 = () => Float64Array.from({ length: 9 }, () => r() * 2 - 1);
    // a rotation about an axis, X2 = R X1 + t
    const [angle, axis] = [0.3 + r(), [r(), r(), r()]];
    const n = Math.hypot(...axis);
    const [x, y, z] = axis.map((v) => v / n);
    const [c, s1] = [Math.cos(angle), Math.sin(angle)];
    const rotation = Float64Array.from([c + x * x * (1 - c), x * y * (1 - c) - z * s1, x * z * (1 - c) + y * s1, y * x * (1 - c) + z * s1, c + y * y * (1 - c), y * z * (1 - c) - x * s1, z * x * (1 - c) - y * s1, z * y * (1 - c) + x * s1, c + z * z * (1 - c)]);
    const translation: [number, number, number] = [r() - 0.5, r() - 0.5, r() - 0.5];
    const calibrated = { image1: 1, image2: 2, config: 2, inlierMatches: Uint32Array.from([0, 3, 16, 0]), fundamental: random3(), essential: random3(), homography: random3(), rotation, translation };
    // given as (3, 1): stored as (1, 3), inverted
    const swapped = { image1: 3, image2: 1, config: 3, inlierMatches: Uint32Array.from([7, 1, 2, 5]), fundamental: random3(), homography: random3() };
    const degenerate = { image1: 2, image2: 3, config: 1, inlierMatches: new Uint32Array(0), fundamental: random3() };
    content.twoViewGeometries = [calibrated, swapped, degenerate];
    const file = path.join(await tempDir(), 'database.db');
    await writeColmapDatabase(file, content);

    const db = new (await sql()).Database(await readFile(file));
    const rows = db.exec('SELECT pair_id, rows, cols, data, config, F, E, H, qvec, tvec FROM two_view_geometries ORDER BY pair_id')[0].values;
    db.close();
    expect(rows.map((row) => [row[0], row[1], row[2], row[4]])).toEqual([[MAX_IMAGE_ID + 2, 2, 2, 2], [MAX_IMAGE_ID + 3, 2, 2, 3], [2 * MAX_IMAGE_ID + 3, 0, 2, 1]]);
    const f64 = (v: unknown) => Array.from(new Float64Array(Uint8Array.from(v as Uint8Array).buffer));
    const u32 = (v: unknown) => Array.from(new Uint32Array(Uint8Array.from(v as Uint8Array).buffer));
    const [one, two, three] = rows;
    expect(u32(one[3])).toEqual([0, 3, 16, 0]);
    expect(f64(one[5])).toEqual(Array.from(calibrated.fundamental));
    expect(f64(one[6])).toEqual(Array.from(calibrated.essential));
    expect(f64(one[7])).toEqual(Array.from(calibrated.homography));
    // qvec: (w, x, y, z) of the rotation, w >= 0
    const q = f64(one[8]);
    expect(q[0], `seed ${seed}`).toBeCloseTo(Math.cos(angle / 2), 12);
    for (let k = 0; k < 3; k++) expect(q[k + 1], `seed ${seed}`).toBeCloseTo([x, y, z][k] * Math.sin(angle / 2), 12);
    expect(f64(one[9])).toEqual(translation);
    // the swapped pair: columns swapped, F transposed, H inverted, E and the pose zero (none given)
    expect(u32(two[3])).toEqual([1, 7, 5, 2]);
    const F = swapped.fundamental;
    expect(f64(two[5])).toEqual([F[0], F[3], F[6], F[1], F[4], F[7], F[2], F[5], F[8]]);
    expect(f64(two[6])).toEqual(new Array(9).fill(0));
    const Hinv = f64(two[7]);
    const H = swapped.homography;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(Hinv[3 * i] * H[j] + Hinv[3 * i + 1] * H[3 + j] + Hinv[3 * i + 2] * H[6 + j], `seed ${seed}`).toBeCloseTo(i === j ? 1 : 0, 9);
    expect([f64(two[8]), f64(two[9])]).toEqual([[0, 0, 0, 0], [0, 0, 0]]);
    // no inliers: COLMAP binds empty matrices, which SQLite stores as NULL
    expect(three.slice(5)).toEqual([null, null, null, null, null]);
    expect(three[3]).toBeNull();

    const back = await readColmapDatabase(file);
    expect(back.verified).toEqual([{ image1: 1, image2: 2, inliers: 2, config: 2 }, { image1: 1, image2: 3, inliers: 2, config: 3 }]);
    expect(back.twoViewGeometries.map((g) => [g.image1, g.image2, g.config, Array.from(g.inlierMatches)])).toEqual([[1, 2, 2, [0, 3, 16, 0]], [1, 3, 3, [1, 7, 5, 2]], [2, 3, 1, []]]);
    expect(Array.from(back.twoViewGeometries[0].essential)).toEqual(Array.from(calibrated.essential));
    expect(Array.from(back.twoViewGeometries[2].fundamental)).toEqual(new Array(9).fill(0));
  });

  it('a pose given for the swapped pair is stored inverted: X1 = R^T X2 - R^T t', async () => {
    const rotation = Float64Array.from([0, -1, 0, 1, 0, 0, 0, 0, 1]); // 90 degrees about z
    const content = randomContent(5);
    content.twoViewGeometries = [{ image1: 2, image2: 1, config: 5, inlierMatches: Uint32Array.from([1, 2]), rotation, translation: [1, 2, 3] }];
    const file = path.join(await tempDir(), 'database.db');
    await writeColmapDatabase(file, content);
    const [g] = (await readColmapDatabase(file)).twoViewGeometries;
    expect([g.image1, g.image2, Array.from(g.inlierMatches)]).toEqual([1, 2, [2, 1]]);
    // R^T is -90 degrees about z: (cos 45, 0, 0, -sin 45)
    const half = Math.SQRT1_2;
    Array.from(g.qvec).forEach((v, k) => expect(v).toBeCloseTo([half, 0, 0, -half][k], 12));
    // -R^T t = -(2, -1, 3)
    expect(Array.from(g.tvec)).toEqual([-2, 1, -3]);
  });

  it("reads COLMAP's own 6-column keypoints (affine shape) as x, y, scale, orientation", async () => {
    const file = path.join(await tempDir(), 'database.db');
    await writeColmapDatabase(file, randomContent(4));
    const [scale, angle] = [3.5, 2.1];
    const six = Float32Array.from([10.5, 20.5, scale * Math.cos(angle), -scale * Math.sin(angle), scale * Math.sin(angle), scale * Math.cos(angle)]);
    const db = new (await sql()).Database(await readFile(file));
    db.run('UPDATE keypoints SET rows = 1, cols = 6, data = ? WHERE image_id = 3', [new Uint8Array(six.buffer)]);
    await writeFile(file, db.export());
    db.close();
    const [x, y, s, o] = (await readColmapDatabase(file)).images[2].keypoints;
    expect([x, y]).toEqual([10.5, 20.5]);
    expect(s).toBeCloseTo(scale, 5);
    expect(o).toBeCloseTo(angle, 5);
  });

  it('replaces a database atomically: no temp file left, the new content whole', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'database.db');
    await writeFile(file, 'not sqlite');
    await expect(readColmapDatabase(file)).rejects.toThrow(/database\.db/);
    await writeColmapDatabase(file, randomContent(2));
    expect(await readdir(dir)).toEqual(['database.db']);
    expect((await readColmapDatabase(file)).images).toHaveLength(3);
  });

  it('refuses content COLMAP would misread, naming the file and the problem', async () => {
    const file = path.join(await tempDir(), 'database.db');
    const bad = (edit: (c: ColmapDatabaseContent) => void) => {
      const c = randomContent(3);
      edit(c);
      return writeColmapDatabase(file, c);
    };
    await expect(bad((c) => (c.images[0].descriptors = c.images[0].descriptors.subarray(1)))).rejects.toThrow(/database\.db: image 1 \(clip\/a\.jpg\).*rows of 4 and 128/);
    await expect(bad((c) => (c.images[1].cameraId = 3))).rejects.toThrow(/names camera 3 of 2/);
    await expect(bad((c) => c.matches.push({ image1: 2, image2: 1, matches: new Uint32Array(0) }))).rejects.toThrow(/matched twice/);
    await expect(bad((c) => (c.matches[0] = { image1: 1, image2: 4, matches: new Uint32Array(0) }))).rejects.toThrow(/images 1 and 4 of 3/);
    await expect(bad((c) => (c.cameras[1].params = new Float64Array(4)))).rejects.toThrow(/OPENCV\) has 4 params, the model has 8/);
    await expect(bad((c) => (c.twoViewGeometries = [{ image1: 1, image2: 2, config: 9, inlierMatches: new Uint32Array(0) }]))).rejects.toThrow(/database\.db: two-view geometry of images 1 and 2: config 9/);
    await expect(bad((c) => (c.twoViewGeometries = [{ image1: 1, image2: 2, config: 2, inlierMatches: new Uint32Array(2) }, { image1: 2, image2: 1, config: 2, inlierMatches: new Uint32Array(2) }]))).rejects.toThrow(/images 2 and 1 are verified twice/);
    await expect(bad((c) => (c.twoViewGeometries = [{ image1: 1, image2: 2, config: 2, inlierMatches: new Uint32Array(3) }]))).rejects.toThrow(/two-view geometries between images 1 and 2: 3 values, not pairs/);
    expect(existsSync(file)).toBe(false);
  });

  const colmap = spawnSync('colmap', ['help'], { encoding: 'utf8' });
  const haveColmap = colmap.status === 0 && /COLMAP 3\.8/.test(colmap.stdout + colmap.stderr);
  if (!haveColmap) console.log('colmap-database test: no COLMAP 3.8 on PATH, so the schema is not compared with colmap database_creator\'s');
  it.runIf(haveColmap)('has the schema COLMAP 3.8\'s database_creator makes (columns, index, user_version)', async () => {
    const dir = await tempDir();
    const theirs = path.join(dir, 'colmap.db');
    const made = spawnSync('colmap', ['database_creator', '--database_path', theirs], { encoding: 'utf8', env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' } });
    expect(made.status, made.stderr).toBe(0);
    const ours = path.join(dir, 'ours.db');
    await writeColmapDatabase(ours, { cameras: [], images: [], matches: [] });
    const expected = await schemaOf(theirs);
    expect(expected.version).toEqual([String(COLMAP_SCHEMA_VERSION)]);
    expect(await schemaOf(ours)).toEqual(expected);
  });
});
