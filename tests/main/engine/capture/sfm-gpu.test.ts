/**
 * `features: 'gpu'` end to end with the real COLMAP 3.8: our SIFT and matching on 4 of the statue's
 * photos (downscaled to 800 px), written into database.db, verified by COLMAP's matcher (which
 * finds our matches there and only verifies them) and mapped by its mapper. Proves COLMAP reads
 * what we write. Skipped, saying why, without COLMAP 3.8 or ../shared/data.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { openColmap } from '../../../../main/engine/capture/colmap-cli.js';
import { runSfm, type SfmGroup, type SfmOptions, type SfmProgress } from '../../../../main/engine/capture/sfm.js';
import { readColmapDatabase } from '../../../../main/engine/sfm/colmap-database.js';
import { findTool } from '../../../../main/engine/capture/tools.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { testGpu } from '../../../helpers/gpu.js';
import { tempDir } from '../../../helpers/datasets.js';
import { rm } from 'node:fs/promises';

const STATUE = path.resolve(__dirname, '../../../../../shared/data/colmap_statue/images');
const PHOTOS = ['DSC_5283.jpg', 'DSC_5284.jpg', 'DSC_5285.jpg', 'DSC_5286.jpg'];
const banner = spawnSync('colmap', ['help'], { encoding: 'utf8' });
const colmap38 = banner.status === 0 && /COLMAP 3\.8/.test(banner.stdout + banner.stderr);
const data = existsSync(path.join(STATUE, PHOTOS[0]));
const reason = !colmap38 ? 'no COLMAP 3.8 on PATH' : !data ? `${STATUE} is absent` : '';
if (reason) console.log(`sfm-gpu test skipped: ${reason}`);

const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

/** `rename`: the name each photo is stored under in the capture (default its own). */
async function setup(rename: (photo: string) => string = (p) => p) {
  const dir = await tempDir('sfm-gpu');
  temps.push(dir);
  const imagesDir = path.join(dir, 'images');
  await mkdir(path.join(imagesDir, 'statue'), { recursive: true });
  const group: SfmGroup = { name: 'statue', kind: 'photos', images: [] };
  for (const photo of PHOTOS) {
    await sharp(path.join(STATUE, photo)).resize({ width: 800 }).jpeg({ quality: 95 }).toFile(path.join(imagesDir, 'statue', rename(photo)));
    group.images.push(`statue/${rename(photo)}`);
  }
  const colmap = await openColmap(findTool('colmap', process.env), process.env);
  const ctx = await testGpu();
  const options: SfmOptions = { matcher: 'exhaustive', features: 'gpu', gpu: () => Promise.resolve(ctx), cameraModel: 'SIMPLE_RADIAL', maxFeatures: 2048, maxImageSize: 800, bundleAdjust: false, threads: 1 };
  return { colmap, paths: { imagesDir, workDir: path.join(dir, 'colmap') }, groups: [group], options };
}

describe.skipIf(reason !== '')('structure from motion on our GPU features (COLMAP 3.8 verifies and maps)', () => {
  it('COLMAP registers every photo from our database; the report counts features and verified pairs; a rerun resumes every stage', async () => {
    const { colmap, paths, groups, options } = await setup();
    const events: SfmProgress[] = [];
    const result = await runSfm(colmap, paths, groups, { ...options, onProgress: (p) => events.push(p) });
    expect(result.model?.images.length).toBe(4);
    const db = await readColmapDatabase(path.join(paths.workDir, 'database.db'));
    // one camera per photo, COLMAP's guess: f = 1.2 x 800
    expect(db.cameras.map((c) => [c.model, c.width, c.params[0]])).toEqual(PHOTOS.map(() => ['SIMPLE_RADIAL', 800, 960]));
    expect(db.matches).toHaveLength(6);
    expect(db.verified.length).toBeGreaterThanOrEqual(3);
    const stats = result.matchStats!;
    for (const im of db.images) {
      expect(stats.images[im.name].features).toBe(im.keypoints.length / 4);
      expect(result.features[im.name]).toBe(im.keypoints.length / 4);
      expect(stats.images[im.name].features).toBeGreaterThan(100);
    }
    expect(stats.unmatched).toEqual([]);
    expect(stats.pairs).toEqual({ matched: 6, verified: db.verified.length });
    // COLMAP verified only: its inliers are a subset of our raw matches (at most as many per pair)
    for (const v of db.verified) expect(v.inliers).toBeLessThanOrEqual(db.matches.find((m) => m.image1 === v.image1 && m.image2 === v.image2)!.matches.length / 2);
    expect(events.filter((e) => e.stage === 'features').map((e) => e.message)).toContain('extract 4/4 images (statue/DSC_5286.jpg: ' + String(result.features['statue/DSC_5286.jpg']) + ' features)');
    expect(events.some((e) => e.stage === 'matching' && e.message === 'match 6/6 pairs')).toBe(true);
    expect(Object.keys(result.detailS).sort()).toEqual(['extract', 'match', 'verify', 'writeDatabase']);

    const again: SfmProgress[] = [];
    const second = await runSfm(colmap, paths, groups, { ...options, gpu: () => Promise.reject(new Error('a resumed run must not need the GPU')), onProgress: (p) => again.push(p) });
    expect(second.resumed).toEqual(['features', 'matching', 'mapping']);
    expect(again.every((e) => e.skipped)).toBe(true);
    expect(second.model?.images.length).toBe(4);
  }, 240_000);

  it('names with spaces go through the database, verification and the mapper as they are', async () => {
    // COLMAP 3.8's pair lists split a line at its first space, so verification must not go through one
    const { colmap, paths, groups, options } = await setup((p) => p.replace('_', ' copy of '));
    const result = await runSfm(colmap, paths, groups, options);
    expect(groups[0].images[0]).toBe('statue/DSC copy of 5283.jpg');
    expect(result.model?.images.map((im) => im.name).sort()).toEqual([...groups[0].images].sort());
    const db = await readColmapDatabase(path.join(paths.workDir, 'database.db'));
    expect(db.images.map((im) => im.name)).toEqual(groups[0].images);
    expect(db.verified.length).toBeGreaterThanOrEqual(3);
  }, 240_000);

  it('a cancel during extraction stops with `cancelled` and leaves no database behind (the next run extracts again)', async () => {
    const { colmap, paths, groups, options } = await setup();
    const controller = new AbortController();
    const run = runSfm(colmap, paths, groups, { ...options, signal: controller.signal, onProgress: (p) => p.stage === 'features' && p.fraction > 0 && controller.abort() });
    await expect(run).rejects.toSatisfy((e: unknown) => e instanceof ArgonautError && e.code === 'cancelled');
    expect(existsSync(path.join(paths.workDir, 'database.db'))).toBe(false);
  }, 120_000);
});
