/**
 * Our whole SfM (`capture --sfm argonaut`) on 6 of the statue's photos at 400 px, on this
 * machine's GPU adapter (llvmpipe in CI) and with no COLMAP: the model files COLMAP's tools read
 * (tracks, 2D points, colours), the refine seam between mapping and writing, resume stage by stage,
 * cancel. Skipped, saying why, without ../shared/data.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runArgonautSfm, type ArgonautSfmOptions } from '../../../../main/engine/capture/sfm-argonaut.js';
import { unrefined, type RefineMapping } from '../../../../main/engine/capture/sfm-argonaut-model.js';
import { modelStats } from '../../../../main/engine/capture/sfm-report.js';
import type { SfmGroup, SfmProgress } from '../../../../main/engine/capture/sfm-stages.js';
import { readColmapModel } from '../../../../main/engine/dataset/colmap.js';
import { readImage } from '../../../../main/engine/formats/images.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { installedTool } from '../../../helpers/capture.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { downscaledPhotos, statue } from '../../../helpers/sfm-scenes.js';

const tempDir = cleanedTempDirs(afterAll);
const PHOTOS = ['DSC_5283.jpg', 'DSC_5284.jpg', 'DSC_5285.jpg', 'DSC_5286.jpg', 'DSC_5287.jpg', 'DSC_5288.jpg'];
const colmap = installedTool('colmap');

async function setup() {
  const dir = await tempDir('sfm-argonaut');
  const imagesDir = path.join(dir, 'images');
  await downscaledPhotos(path.join(statue.dir, 'images'), PHOTOS, path.join(imagesDir, 'statue'), 400);
  const groups: SfmGroup[] = [{ name: 'statue', kind: 'photos', images: PHOTOS.map((p) => `statue/${p}`) }];
  const ctx = await testGpu();
  const options: ArgonautSfmOptions = { matcher: 'exhaustive', gpuPairs: 'by-kind', gpu: () => Promise.resolve(ctx), cameraModel: 'SIMPLE_RADIAL', maxFeatures: 2048, maxImageSize: 400 };
  return { paths: { imagesDir, workDir: path.join(dir, 'argonaut') }, groups, options };
}

describe.runIf(statue.available)('our structure from motion end to end (no COLMAP)', () => {
  let shared: Awaited<ReturnType<typeof setup>> | undefined;

  it('maps the photos and writes a COLMAP model whose tracks, 2D points and colours agree with the images; each stage reports progress', async () => {
    shared = await setup();
    const { paths, groups, options } = shared;
    const events: SfmProgress[] = [];
    let refineCalls = 0;
    const refine: RefineMapping = async (mapped, input, control) => {
      refineCalls++;
      control.onProgress?.(0.5, 'halfway');
      return unrefined(mapped, input, control);
    };
    const result = await runArgonautSfm(paths, groups, { ...options, refine, refineName: 'test', onProgress: (p) => events.push(p) });
    expect(refineCalls).toBe(1);
    expect(result.failure).toBeUndefined();
    const model = result.model!;
    console.log(`statue x6 at 400 px, ours: ${model.images.length}/6 registered, ${model.points.ids.length} points, stages ${JSON.stringify(result.timingsS)}, mapper ${JSON.stringify(result.mappingStats?.stageMs)}`);
    expect(model.images.length).toBeGreaterThanOrEqual(5);
    expect(result.unregistered.length).toBe(6 - model.images.length);
    expect(model.points.ids.length).toBeGreaterThan(100);
    expect(result.bundle).toMatchObject({ refinement: 'test', method: 'none' });
    for (const stage of ['features', 'matching', 'mapping', 'bundle'] as const) expect(Math.max(...events.filter((e) => e.stage === stage).map((e) => e.fraction)), stage).toBe(1);
    expect(events.some((e) => e.stage === 'bundle' && e.message === 'halfway')).toBe(true);
    expect(events.find((e) => e.stage === 'mapping' && e.fraction === 1)?.message).toMatch(/images, \d+ points \((calibration [\d.]+ s, )?viewGraph [\d.]+ s, rotations/);

    // the files as read back: every image's 2D points are its keypoints, each observed point's track names it back
    const reread = await readColmapModel(result.modelDir!);
    expect(reread.images.map((im) => im.name).sort()).toEqual(model.images.map((im) => im.name).sort());
    const stats = modelStats(reread);
    expect(stats.meanReprojectionErrorPx).toBeLessThan(2);
    expect(stats.observations).toBeGreaterThan(2 * model.points.ids.length - 1);
    // colours: a point's colour is the mean of its keypoints' pixels (pixel floor(x), floor(y)); point 1 recomputed by hand
    const sums = [0, 0, 0];
    let seen = 0;
    for (const image of reread.images) {
      const k = Array.from(image.point3DIds).indexOf(1);
      if (k < 0) continue;
      const pixels = await readImage(path.join(paths.imagesDir, image.name));
      const at = (Math.floor(image.xy[2 * k + 1]) * pixels.width + Math.floor(image.xy[2 * k])) * pixels.channels;
      for (let c = 0; c < 3; c++) sums[c] += pixels.data[at + c];
      seen++;
    }
    expect(seen).toBeGreaterThanOrEqual(2);
    expect(Array.from(reread.points.colors.subarray(0, 3))).toEqual(sums.map((v) => Math.round(v / seen)));
    expect(new Set(Array.from(reread.points.colors)).size).toBeGreaterThan(20);
  }, 300_000);

  it.runIf(colmap.available)("COLMAP's model_analyzer reads the model and agrees on points and the reprojection error", () => {
    expect(shared, 'needs the run of the test before').toBeDefined();
    const dir = path.join(shared!.paths.workDir, 'sparse', '0');
    const analyzer = spawnSync(colmap.path, ['model_analyzer', '--path', dir], { encoding: 'utf8', env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' } });
    const text = `${analyzer.stdout}\n${analyzer.stderr}`;
    expect(text, text).toMatch(/Points: \d+/);
    expect(Number(/Mean reprojection error: ([\d.]+)px/.exec(text)![1])).toBeLessThan(2);
  });

  it('a rerun resumes every stage without a GPU; another refinement runs only the bundle stage again', async () => {
    expect(shared, 'needs the run of the test before').toBeDefined();
    const { paths, groups, options } = shared!;
    const noGpu = () => Promise.reject(new Error('a resumed run must not need the GPU'));
    const again: SfmProgress[] = [];
    const second = await runArgonautSfm(paths, groups, { ...options, refineName: 'test', refine: unrefined, gpu: noGpu, onProgress: (p) => again.push(p) });
    expect(second.resumed).toEqual(['features', 'matching', 'mapping', 'bundle']);
    expect(again.every((e) => e.skipped)).toBe(true);
    expect(second.model?.images.length).toBeGreaterThanOrEqual(5);
    // a refinement that moves the focal length: only the bundle stage runs, and cameras.bin carries it
    const longer: RefineMapping = async (mapped, input, control) => {
      const base = await unrefined(mapped, input, control);
      return { ...base, cameras: base.cameras.map((c) => ({ ...c, params: Float64Array.from(c.params, (v, i) => (i === 0 ? 1.01 * v : v)) })), summary: { method: 'test' } };
    };
    const third = await runArgonautSfm(paths, groups, { ...options, refine: longer, refineName: 'longer', gpu: noGpu });
    expect(third.resumed).toEqual(['features', 'matching', 'mapping']);
    const camera = [...(await readColmapModel(third.modelDir!)).cameras.values()][0];
    expect(camera.params[0]).toBeCloseTo(1.01 * 1.2 * 400, 6);
  }, 120_000);

  it('a cancel during extraction stops with `cancelled` and leaves no database behind', async () => {
    const { paths, groups, options } = await setup();
    const controller = new AbortController();
    const run = runArgonautSfm(paths, groups, { ...options, signal: controller.signal, onProgress: (p) => p.stage === 'features' && p.fraction > 0 && controller.abort() });
    await expect(run).rejects.toSatisfy((e: unknown) => e instanceof ArgonautError && e.code === 'cancelled');
    expect(existsSync(path.join(paths.workDir, 'database.db'))).toBe(false);
  }, 120_000);
});
