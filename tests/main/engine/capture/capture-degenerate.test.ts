/**
 * Degenerate inputs to `capture` with our SfM (the default) and no COLMAP on PATH, each by name:
 * a clear message that says what the images show and what to try, `bad_input` (the CLI's exit
 * code 3), and nothing lost (the images stay in the dataset, the report is written). Small real
 * photos (the statue's, 400 px) so llvmpipe extracts them in seconds.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureToDataset, type CaptureReport } from '../../../../main/engine/capture/capture.js';
import { findOnPath } from '../../../../main/engine/capture/tools.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { writeFakeColmap } from '../../../helpers/fake-colmap.js';
import { testGpu } from '../../../helpers/gpu.js';
import { downscaledPhotos, identicalPhotos, maupertuis, rotatedViews, statue } from '../../../helpers/sfm-scenes.js';

const tempDir = cleanedTempDirs(afterAll);
const PHOTOS = ['DSC_5283.jpg', 'DSC_5284.jpg', 'DSC_5285.jpg', 'DSC_5286.jpg', 'DSC_5287.jpg', 'DSC_5288.jpg'];

/** An environment whose PATH has ffmpeg and ffprobe (where installed) but no COLMAP: the capture must not need it. */
async function withoutColmap(): Promise<NodeJS.ProcessEnv> {
  const bin = path.join(await tempDir('no-colmap-bin'), 'bin');
  await mkdir(bin);
  for (const tool of ['ffmpeg', 'ffprobe']) {
    const found = findOnPath(tool);
    if (found) await symlink(found, path.join(bin, tool));
  }
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin };
  delete env.ARGONAUT_COLMAP;
  return env;
}

async function capture(inputs: string[], env?: NodeJS.ProcessEnv): Promise<{ report?: CaptureReport; error?: ArgonautError; out: string }> {
  const out = path.join(await tempDir('degenerate'), 'dataset');
  const ctx = await testGpu();
  try {
    const { report } = await captureToDataset(inputs, out, { env: env ?? (await withoutColmap()), gpu: () => Promise.resolve(ctx), maxFeatures: 2048 });
    return { report, out };
  } catch (error) {
    return { error: error as ArgonautError, out };
  }
}

async function savedReport(out: string): Promise<CaptureReport> {
  return JSON.parse(await readFile(path.join(out, 'capture', 'report.json'), 'utf8')) as CaptureReport;
}

const source = path.join(statue.dir, 'images', PHOTOS[0]);

describe.runIf(statue.available)('capture with our SfM: degenerate inputs, by name', () => {
  it('all images identical (no camera motion): bad_input saying so and to move the camera; the images and the report are kept', async () => {
    const folder = await identicalPhotos(source, path.join(await tempDir('identical'), 'same'), 4, 400);
    const { error, out } = await capture([folder]);
    expect(error?.code, String(error)).toBe('bad_input');
    expect(error!.message).toMatch(/the images show no camera motion .*move the camera between shots/);
    const report = await savedReport(out);
    expect(report).toMatchObject({ registered: 0, total: 4, sfm: { method: 'argonaut' }, features: 'gpu' });
    expect(report.tools.colmap).toBeUndefined();
    expect(report.timingsS.features).toBeGreaterThan(0); // what ran is kept in the report
    for (let k = 0; k < 4; k++) expect(existsSync(path.join(out, 'images', 'same', `view_${k}.jpg`))).toBe(true);
  }, 300_000);

  it.skipIf(process.platform === 'win32')('with COLMAP installed (a fake one here) it takes over where ours fails, and the report says why', async () => {
    const folder = await identicalPhotos(source, path.join(await tempDir('identical-fallback'), 'same'), 4, 400);
    const env = await withoutColmap();
    await writeFakeColmap(env.PATH!);
    const { report, error } = await capture([folder], { ...env, FAKE_COLMAP_VERSION: '3.8' });
    expect(error, String(error)).toBeUndefined();
    // the fake mapper registers every image it is given
    expect(report).toMatchObject({ registered: 4, sfm: { method: 'colmap', fallback: expect.stringMatching(/^our SfM found no model: the images show no camera motion/) } });
    expect(report!.tools.colmap?.version).toMatch(/3\.8/);
    expect(report!.diagnostics[0].message).toMatch(/COLMAP's mapper built this model instead/);
  }, 300_000);

  it('pure rotation (a panorama): bad_input saying the camera only turned, and to move it between shots', async () => {
    const folder = await rotatedViews(source, path.join(await tempDir('panorama'), 'turns'), [-12, -6, 0, 6, 12], 400, 300, 900);
    const { error, out } = await capture([folder]);
    expect(error?.code, String(error)).toBe('bad_input');
    expect(error!.message).toMatch(/the camera only turned on the spot .*move the camera between shots/);
    const report = await savedReport(out);
    expect(report.verification?.configurations).toMatchObject({ PANORAMIC: expect.any(Number) });
    expect(report.registered).toBe(0);
  }, 300_000);

  it('a single image: bad_input asking for many overlapping views', async () => {
    const folder = await downscaledPhotos(path.join(statue.dir, 'images'), [PHOTOS[0]], path.join(await tempDir('single'), 'one'), 400);
    const { error } = await capture([folder]);
    expect(error?.code).toBe('bad_input');
    expect(error!.message).toMatch(/only 1 image\(s\) .*structure from motion needs many overlapping views \(give a folder with many overlapping photos\)/);
  }, 60_000);

  describe.runIf(maupertuis.available)('two disconnected groups, one folder with an unreadable file', () => {
    let result: Awaited<ReturnType<typeof capture>> | undefined;
    it('the larger group (the statue) is mapped; every photo of the other is reported by name as a separate group', async () => {
      const dir = await tempDir('groups');
      const statueDir = await downscaledPhotos(path.join(statue.dir, 'images'), PHOTOS, path.join(dir, 'statue'), 400);
      await writeFile(path.join(statueDir, 'broken.jpg'), 'not a JPEG at all');
      const other = await downscaledPhotos(path.join(maupertuis.dir, 'images'), ['00.jpg', '01.jpg', '02.jpg', '03.jpg'], path.join(dir, 'square'), 400);
      result = await capture([statueDir, other]);
      expect(result.error, String(result.error)).toBeUndefined();
      const report = result.report!;
      expect(report.sfm.method).toBe('argonaut');
      expect(report.inputs.find((i) => i.name === 'statue')!.registered).toBeGreaterThanOrEqual(5);
      expect(report.inputs.find((i) => i.name === 'square')!.registered).toBe(0);
      const line = report.diagnostics.find((d) => /separate group of \d+ image\(s\)/.test(d.message));
      expect(line?.message, JSON.stringify(report.diagnostics)).toBeDefined();
      for (const name of ['00', '01', '02', '03']) expect(line!.message).toContain(`square/${name}.jpg`);
    }, 400_000);

    it('the unreadable file is skipped and named (report and diagnostics), the rest of its folder used, the file left as it was', async () => {
      expect(result?.report, 'needs the capture of the test before').toBeDefined();
      const report = result!.report!;
      const statueInput = report.inputs.find((i) => i.name === 'statue')!;
      expect(statueInput.images).toBe(6);
      expect(statueInput.photos!.unreadable).toEqual([{ file: expect.stringMatching(/statue[/\\]broken\.jpg$/), reason: expect.stringMatching(/broken\.jpg/) }]);
      expect(report.diagnostics.some((d) => /skipped .*broken\.jpg: it could not be read/.test(d.message))).toBe(true);
      expect(existsSync(path.join(result!.out, 'images', 'statue', 'broken.jpg'))).toBe(false);
    });
  });
});
