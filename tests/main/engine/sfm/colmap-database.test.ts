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
