/**
 * Import and export end to end: the built renderer in Debian's Chromium against browser mode and
 * a real engine host (this machine's adapter; llvmpipe in CI). A short ffmpeg testsrc clip is
 * captured into a project (real ffmpeg; the fake COLMAP of tests/helpers/fake-colmap.ts first on
 * the studio's PATH, so structure from motion takes milliseconds), the stages and the SfM report
 * appear on Home, and Train gets the project; a small project whose splats lie on a sphere is
 * exported as SPZ, SOG and glTF splats, its SOG opened again as a project, and a mesh extracted
 * from it and previewed; bad inputs show their error where they happened.
 * Screenshots land in test-output/screenshots/ (look at them).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/build.js';
import { blockTexture, crop, installedTool, pngOf } from '../helpers/capture.js';
import { tempDir } from '../helpers/datasets.js';
import { writeFakeColmap } from '../helpers/fake-colmap.js';
import { sphereProject } from '../helpers/mesh-project.js';
import { reportSkip, type PageProblems } from './helpers/chromium.js';
import { canvasStats } from './helpers/pixels.js';
import { openStudioSession, type StudioSession } from './helpers/studio.js';

const ffmpeg = installedTool('ffmpeg');
const skip = reportSkip(import.meta.filename);
// Only the capture flows need ffmpeg; the splat formats and the mesh run without it.
const noFfmpeg = !ffmpeg.available;
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');

describe.skipIf(skip)('import from video and export a mesh in Chromium against a real engine host', () => {
  let dir: string;
  let session: StudioSession | undefined;
  let page: Page;
  let problems: PageProblems;
  let clip: string;
  let ball: string;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    dir = await tempDir('e2e-import');
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await writeFakeColmap(bin);
    clip = path.join(dir, 'turntable.mp4');
    if (!noFfmpeg) {
      const made = spawnSync(ffmpeg.path, ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=100x100:rate=10:duration=3', '-pix_fmt', 'yuv420p', clip]);
      expect(made.status).toBe(0);
    }
    ball = (await sphereProject(path.join(dir, 'ball.argo'))).file;
    session = await openStudioSession({ env: { PATH: [bin, ...(noFfmpeg ? [] : [path.dirname(ffmpeg.path)]), process.env.PATH ?? ''].join(path.delimiter), FAKE_COLMAP_VERSION: '3.8', ARGONAUT_STATE_DIR: path.join(dir, 'state') } });
    ({ page, problems } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function openView(view: string) {
    await page.locator(`[data-nav="${view}"]`).click();
    await page.locator(`[data-view="${view}"]`).waitFor();
  }

  /** Sets a registry parameter's text field inside `scope`. */
  async function setParam(scope: string, key: string, value: string) {
    const input = page.locator(`${scope} [data-param="${key}"] input.number`);
    await input.fill(value);
  }

  it.skipIf(noFfmpeg)('captures a clip into a new project: capture settings, stage progress, the SfM report and frames, then Train on it', async () => {
    await openView('home');
    await page.locator('[data-source="video"]').click();
    await page.locator('input[name="source-path"]').fill(clip);
    await page.locator('[data-section="capture-settings"] > summary').click();
    await setParam('[data-section="capture-settings"]', 'capture.frames', '6');
    await setParam('[data-section="capture-settings"]', 'capture.maxSize', '160');
    // the fake COLMAP maps (our SfM on these synthetic frames is sfm-argonaut.test.ts's business)
    await page.locator('[data-section="capture-settings"] [data-param="capture.sfm"] select').selectOption('colmap');
    await page.screenshot({ path: path.join(screenshots, 'home-import-form.png') });
    // Every stage that ever shows as running is recorded in the page (the fake COLMAP is quick).
    // (Strings, not functions: the root tsconfig has no DOM types.)
    await page.evaluate(`(() => {
      const seen = (window.seenStages = new Set());
      const record = () => document.querySelectorAll('[data-stage-state="active"]').forEach((e) => seen.add(e.getAttribute('data-stage')));
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-stage-state'] });
    })()`);
    await page.locator('[data-action="create-project"]').click();
    const capture = page.locator('[data-section="capture"]');
    await capture.locator('[data-task-state="finished"]').waitFor({ timeout: 60_000 });
    const seen = await page.evaluate<string[]>('[...window.seenStages]');
    expect(seen.length, `stages seen running: ${seen.join(', ')}`).toBeGreaterThanOrEqual(3);
    expect(await capture.locator('[data-stage-state="done"]').count()).toBe(await capture.locator('[data-stage]').count());

    const registered = await capture.locator('[data-field="registered"]').textContent();
    const [done, total] = registered!.split('/').map((s) => Number(s.trim()));
    expect(total).toBeGreaterThanOrEqual(4);
    expect(done).toBe(total); // the fake COLMAP registers every frame it is given
    await expect.poll(() => capture.locator('[data-section="frames"] img').count(), { timeout: 30_000 }).toBe(total);
    await expect.poll(() => page.evaluate<boolean>(`[...document.querySelectorAll('[data-section="frames"] img')].every((i) => i.naturalWidth > 0)`)).toBe(true);
    expect(await page.locator('[data-field="project-name"]').textContent()).toBe('turntable');
    expect(existsSync(path.join(dir, 'turntable.argo'))).toBe(true);
    expect(await page.locator('[data-section="recent"] [data-recent="turntable"]').count()).toBe(1);
    await capture.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(screenshots, 'home-capture-report.png') });

    await page.locator('[data-action="train-project"]').click();
    await page.locator('[data-view="train"]').waitFor();
    expect(await page.locator('[data-test="train-source"]').textContent()).toContain(path.join(dir, 'turntable.argo'));
    expect(await page.locator('[data-view="train"] [data-action="start"]').isEnabled()).toBe(true);
    await page.screenshot({ path: path.join(screenshots, 'train-captured-project.png') });
    expect(problems.errors).toEqual([]);
  }, 90_000);

  it('opens a project by path, exports SPZ v4, SOG and glTF splats, and extracts a mesh with a preview', async () => {
    await openView('home');
    await page.locator('[data-action="open-project"]').click();
    await page.locator('input[name="open-path"]').fill(ball);
    await page.locator('[data-action="open-path"]').click();
    await expect.poll(() => page.locator('[data-field="project-name"]').textContent()).toBe('ball');
    await page.locator('[data-action="export-project"]').click();
    await page.locator('[data-view="export"]').waitFor();

    for (const format of ['spz', 'sog', 'glb']) {
      await page.locator(`[data-export="${format}"]`).click();
      const line = page.locator(`[data-format="${format}"] [data-field="splat-result"]`);
      await line.waitFor({ timeout: 30_000 });
      expect(await line.textContent()).toContain('1,500 splats');
      expect(existsSync(path.join(dir, `ball.${format}`)), format).toBe(true);
    }
    await page.screenshot({ path: path.join(screenshots, 'export-splat-formats.png') });

    await setParam('[data-format="mesh"]', 'mesh.resolution', '32');
    await setParam('[data-format="mesh"]', 'mesh.targetTriangles', '800');
    await page.locator('[data-action="extract-mesh"]').click();
    await page.locator('[data-field="mesh-result"]').waitFor({ timeout: 60_000 });
    const result = await page.locator('[data-field="mesh-result"]').textContent();
    const triangles = Number(/([\d,]+) triangles/.exec(result!)![1].replace(/,/g, ''));
    expect(triangles).toBeGreaterThan(200);
    expect(triangles).toBeLessThanOrEqual(800);
    expect(existsSync(path.join(dir, 'ball-mesh.glb'))).toBe(true);
    const canvas = page.locator('canvas.mesh-canvas');
    await canvas.waitFor();
    // SwiftShader draws on the CPU: give the first frames time.
    await expect.poll(async () => canvasStats(await canvas.screenshot()).nonBackgroundFraction, { timeout: 20_000 }).toBeGreaterThan(0.05);
    const stats = canvasStats(await canvas.screenshot());
    expect(stats.distinctColours).toBeGreaterThan(8); // two hemisphere colours, shaded
    await page.locator('[data-format="mesh"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(screenshots, 'export-mesh.png') });
    expect(problems.errors).toEqual([]);
  }, 90_000);

  it('opens the exported SOG as a new project (a splat file), its 1,500 splats ready to view and export', async () => {
    await openView('home');
    await page.locator('[data-source="splat"]').click();
    const sog = path.join(dir, 'sog copy.sog');
    await writeFile(sog, await readFile(path.join(dir, 'ball.sog')));
    await page.locator('input[name="source-path"]').fill(sog);
    await page.locator('[data-action="create-project"]').click();
    await expect.poll(() => page.locator('[data-field="project-name"]').textContent(), { timeout: 30_000 }).toBe('sog copy');
    expect(existsSync(path.join(dir, 'sog copy.argo'))).toBe(true);
    const manifest = JSON.parse(await readFile(path.join(dir, 'sog copy.argo'), 'utf8'));
    expect(manifest.runs[0].outputs.splatCount).toBe(1500);
    expect(problems.errors).toEqual([]);
  }, 60_000);

  it.skipIf(noFfmpeg)('shows bad inputs where they happened: a missing video in the call, too few photos in the capture', async () => {
    await openView('home');
    await page.locator('[data-source="video"]').click();
    const missing = path.join(dir, 'no such clip.mp4');
    await page.locator('input[name="source-path"]').fill(missing);
    await page.locator('[data-action="create-project"]').click();
    const banner = page.locator('[data-view="home"] .error-banner');
    await banner.waitFor();
    expect(await banner.getAttribute('data-code')).toBe('not_found');
    expect(await banner.locator('[data-message]').textContent()).toContain(missing);
    await page.screenshot({ path: path.join(screenshots, 'home-import-missing.png') });
    await banner.getByRole('button', { name: 'Dismiss' }).click();

    const photos = path.join(dir, 'one photo');
    await mkdir(photos);
    await writeFile(path.join(photos, 'only.png'), pngOf(crop(blockTexture(100, 100, 4, 7), 0, 0, 100, 100)));
    await page.locator('[data-source="photos"]').click();
    await page.locator('input[name="source-path"]').fill(photos);
    await page.locator('[data-action="create-project"]').click();
    await page.locator('[data-section="capture"] [data-task-state="failed"]').waitFor({ timeout: 30_000 });
    await banner.waitFor();
    expect(await banner.getAttribute('data-code')).toBe('bad_input');
    expect(await banner.locator('[data-message]').textContent()).toMatch(/only 1 image\(s\)/);
    expect(await page.locator('[data-section="capture"] [data-stage-state="failed"]').count()).toBe(1);
    await page.screenshot({ path: path.join(screenshots, 'home-capture-failed.png') });
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
