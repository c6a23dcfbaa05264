/**
 * `features: 'gpu'` end to end with the real COLMAP 3.8: our SIFT, matching and geometric
 * verification on 4 of the statue's photos (downscaled to 800 px), written into database.db
 * (two_view_geometries included) and mapped by COLMAP's mapper with no matches_importer. Proves
 * COLMAP reads what we write. Skipped, saying why, without COLMAP 3.8 or ../shared/data.
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

describe.skipIf(reason !== '')('structure from motion on our GPU features and verification (COLMAP 3.8 maps)', () => {
  it('COLMAP registers every photo from our database without matches_importer; the report counts features and verified pairs; a rerun resumes every stage', async () => {
    const { colmap, paths, groups, options } = await setup();
    const events: SfmProgress[] = [];
    const result = await runSfm(colmap, paths, groups, { ...options, gpuPairs: 'by-kind', onProgress: (p) => events.push(p) });
    expect(result.model?.images.length).toBe(4);
    // no COLMAP process in the matching stage: run() logs every one it starts under logs/
    expect(existsSync(path.join(paths.workDir, 'logs', 'matching.log'))).toBe(false);
    expect(result.pairs).toMatchObject({ method: 'exhaustive', pairs: 6, retrieved: 0 });
    const db = await readColmapDatabase(path.join(paths.workDir, 'database.db'));
    // one camera per frame size (no EXIF after the resize: camera-groups.ts), COLMAP's guess f = 1.2 x 800
    const sizes = new Set(db.cameras.map((c) => `${c.width}x${c.height}`));
    expect(sizes.size).toBe(db.cameras.length);
    expect(new Set(db.images.map((im) => im.cameraId)).size).toBe(db.cameras.length);
    for (const c of db.cameras) expect([c.model, c.width, c.params[0]]).toEqual(['SIMPLE_RADIAL', 800, 960]);
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
    // our rows, one per pair: no prior focal length, so F and H only, as COLMAP's matcher does (UNCALIBRATED or PLANAR_OR_PANORAMIC, E zero)
    expect(db.twoViewGeometries).toHaveLength(6);
    expect(result.verification).toMatchObject({ pairs: 6, verifiedPairs: db.verified.length });
    for (const g of db.twoViewGeometries) {
      const raw = db.matches.find((m) => m.image1 === g.image1 && m.image2 === g.image2)!.matches;
      const rawPairs = new Set(Array.from({ length: raw.length / 2 }, (_, k) => `${raw[2 * k]},${raw[2 * k + 1]}`));
      for (let k = 0; k < g.inlierMatches.length; k += 2) expect(rawPairs.has(`${g.inlierMatches[k]},${g.inlierMatches[k + 1]}`)).toBe(true);
      if (g.inlierMatches.length === 0) continue;
      expect([3, 6]).toContain(g.config);
      expect(Array.from(g.essential)).toEqual(new Array(9).fill(0));
      expect(Math.max(...Array.from(g.fundamental, Math.abs))).toBeGreaterThan(0);
    }
    expect(events.filter((e) => e.stage === 'features').map((e) => e.message)).toContain('extract 4/4 images (statue/DSC_5286.jpg: ' + String(result.features['statue/DSC_5286.jpg']) + ' features)');
    expect(events.some((e) => e.stage === 'matching' && e.message === 'match 6/6 pairs')).toBe(true);
    expect(events.some((e) => e.stage === 'matching' && e.message === 'verify 6/6 pairs' && e.fraction === 1)).toBe(true);
    expect(Object.keys(result.detailS).sort()).toEqual(['extract', 'match', 'pairs', 'verify', 'writeDatabase']);

    const again: SfmProgress[] = [];
    const second = await runSfm(colmap, paths, groups, { ...options, gpuPairs: 'by-kind', gpu: () => Promise.reject(new Error('a resumed run must not need the GPU')), onProgress: (p) => again.push(p) });
    expect(second.resumed).toEqual(['features', 'matching', 'mapping']);
    expect(again.every((e) => e.skipped)).toBe(true);
    expect(second.model?.images.length).toBe(4);
    expect(second.pairs).toEqual(result.pairs);
    expect(second.verification).toEqual(result.verification);

    // COLMAP's verification of the same matches, kept for comparison: the features are reused, matches_importer runs
    const theirs = await runSfm(colmap, paths, groups, { ...options, verifier: 'colmap' });
    expect(theirs.resumed).toEqual(['features']);
    expect(existsSync(path.join(paths.workDir, 'logs', 'matching.log'))).toBe(true);
    expect(theirs.model?.images.length).toBe(4);
    expect(theirs.verification).toBeUndefined();
    expect(theirs.pairs).toMatchObject({ method: 'exhaustive', pairs: 6 });
    expect((await readColmapDatabase(path.join(paths.workDir, 'database.db'))).verified.length).toBeGreaterThanOrEqual(3);
  }, 300_000);

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
