/**
 * Training end to end: the built studio in Chromium (browser mode) against a real engine host on
 * this machine's adapter (llvmpipe in CI), nothing mocked. The sample scene is trained from the
 * Train view (parameters typed into the registry panel, Start / Pause / Resume / Stop), the charts,
 * the kernel table and the Viewer follow it live; then a real COLMAP dataset becomes a project,
 * trains briefly at a strong downscale and is exported as a PLY through the export service.
 *
 * Kept short for CI (2 cores): tiny splat counts, a few hundred steps at most. The engine host
 * profiles (ARGONAUT_PROFILE=1) so the per-kernel table has something to show.
 * Screenshots: test-output/screenshots/train-*.png, viewer-training*.png, viewer-compare.png.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/build.js';
import { reportSkip, type PageProblems } from './helpers/chromium.js';
import { canvasStats } from './helpers/pixels.js';
import { callEngine, openStudioSession, type Studio, type StudioSession } from './helpers/studio.js';
import { PNG } from 'pngjs';

const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');
const STATUE = path.resolve(repoRoot, '../shared/data/colmap_statue');
/** Steps of the sample-scene job: enough for the charts and two snapshots apart, short on 2 CPU cores. */
const SAMPLE_STEPS = 120;
if (!skip && !existsSync(STATUE)) console.warn(`[skip] train.test.ts, COLMAP part: ${STATUE} not found (a small real COLMAP scene; see docs/datasets.md)`);

/** Share of pixels that differ by more than 24 (any channel) between two same-size screenshots. */
function changedFraction(a: Buffer, b: Buffer): number {
  const x = PNG.sync.read(a);
  const y = PNG.sync.read(b);
  expect([x.width, x.height]).toEqual([y.width, y.height]);
  let changed = 0;
  for (let i = 0; i < x.data.length; i += 4) {
    if (Math.max(Math.abs(x.data[i] - y.data[i]), Math.abs(x.data[i + 1] - y.data[i + 1]), Math.abs(x.data[i + 2] - y.data[i + 2])) > 24) changed++;
  }
  return changed / (x.width * x.height);
}

/**
 * Centres of small clusters of frustum-yellow pixels (the viewer draws training cameras in
 * rgb(250, 199, 64)): a far camera's whole frustum, where a click lands on it. Sorted smallest first.
 */
function frustumSpots(png: Buffer): { x: number; y: number; size: number }[] {
  const image = PNG.sync.read(png);
  const { width, height, data } = image;
  const yellow = (x: number, y: number) => {
    const i = (y * width + x) * 4;
    return data[i] > 190 && data[i + 1] > 140 && data[i + 1] < 230 && data[i + 2] < 130;
  };
  const seen = new Uint8Array(width * height);
  const spots: { x: number; y: number; size: number }[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (seen[y * width + x] || !yellow(x, y)) continue;
      let [minX, maxX, minY, maxY, count] = [x, x, y, y, 0];
      const stack = [[x, y]];
      seen[y * width + x] = 1;
      while (stack.length) {
        const [cx, cy] = stack.pop()!;
        count++;
        [minX, maxX, minY, maxY] = [Math.min(minX, cx), Math.max(maxX, cx), Math.min(minY, cy), Math.max(maxY, cy)];
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) {
            const [nx, ny] = [cx + dx, cy + dy];
            if (nx < 0 || ny < 0 || nx >= width || ny >= height || seen[ny * width + nx] || !yellow(nx, ny)) continue;
            seen[ny * width + nx] = 1;
            stack.push([nx, ny]);
          }
        }
      }
      const size = Math.max(maxX - minX, maxY - minY);
      if (count >= 20 && size >= 8 && size <= 40) spots.push({ x: (minX + maxX) / 2, y: (minY + maxY) / 2, size });
    }
  }
  return spots.sort((a, b) => a.size - b.size);
}

describe.skipIf(skip)('training from the studio, end to end', () => {
  let session: StudioSession | undefined;
  let studio: Studio;
  let page: Page;
  let problems: PageProblems;
  let temp: string;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    temp = mkdtempSync(path.join(os.tmpdir(), 'argonaut-e2e-train-'));
    const env = { ARGONAUT_STATE_DIR: path.join(temp, 'state'), ARGONAUT_PROJECTS_DIR: temp, ARGONAUT_PROFILE: '1' };
    session = await openStudioSession({ env });
    ({ studio, page, problems } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  async function openView(view: 'home' | 'train' | 'viewer') {
    await page.locator(`[data-nav="${view}"]`).click();
    await page.locator(`[data-view="${view}"]`).waitFor();
  }
  const jobState = () => page.locator('[data-test="job-state"]').getAttribute('data-state');
  const step = async () => Number(((await page.locator('[data-test="step"]').textContent()) ?? '').match(/step ([\d,]+)/)?.[1].replace(/,/g, '') ?? -1);
  const points = (metric: string) => page.locator(`[data-view="train"] .metrics-chart[data-metric="${metric}"]`).getAttribute('data-points').then(Number);
  async function setParam(key: string, value: string) {
    const field = page.locator(`[data-view="train"] [data-param="${key}"] input[type="text"]`);
    await field.fill(value);
    expect(await page.locator(`[data-view="train"] [data-param="${key}"] [data-error]`).count()).toBe(0);
  }
  /** The viewer's canvas once it shows a training snapshot of at least `minStep`. */
  async function viewerCanvas(minStep: number): Promise<Locator> {
    await page.locator('[data-component="splat-viewer"][data-ready="true"]').waitFor({ timeout: 60_000 });
    await expect.poll(async () => Number(((await page.locator('[data-test="viewer-source"]').textContent()) ?? '').match(/step ([\d,]+)/)?.[1].replace(/,/g, '') ?? -1), { timeout: 30_000 }).toBeGreaterThanOrEqual(minStep);
    await page.waitForTimeout(1200); // the coalesced update lands and a few frames draw
    return page.locator('canvas.viewer-canvas');
  }

  it('trains the sample scene from the Train view: presets, Start, live progress, charts, kernel table, Pause, Resume, Stop, and the viewer follows', async () => {
    await openView('home');
    await page.locator('[data-action="open-sample"]').click();
    await openView('train');

    // The panel comes from the registry: presets, and every advanced group closed.
    for (const preset of ['fast', 'balanced', 'quality']) expect(await page.locator(`[data-view="train"] [data-preset="${preset}"]`).count()).toBe(1);
    const advanced = page.locator('[data-view="train"] details[data-advanced]');
    expect(await advanced.count()).toBeGreaterThan(0);
    for (const details of await advanced.all()) expect(await details.getAttribute('open')).toBeNull();
    await page.locator('[data-view="train"] [data-preset="fast"]').click();
    expect(await page.locator('[data-view="train"] [data-param="train.iterations"] input[type="text"]').inputValue()).toBe('7000');

    // Small enough for two CPU cores: few random initial splats, the 128 x 96 views halved.
    await setParam('train.iterations', String(SAMPLE_STEPS));
    await page.locator('[data-view="train"] details[data-advanced="Model"] summary').click();
    await setParam('train.initPoints', '300');
    await setParam('train.downscale', '2');
    await page.screenshot({ path: path.join(screenshots, 'train-ready.png') });

    await page.locator('[data-view="train"] [data-action="start"]').click();
    await expect.poll(jobState, { timeout: 90_000 }).toBe('running');
    await expect.poll(step, { timeout: 90_000 }).toBeGreaterThan(0);
    expect(await page.locator('[data-view="train"] [data-action="start"]').isEnabled()).toBe(false);
    expect(await page.locator('[data-view="train"] [data-param="train.iterations"] input[type="text"]').isDisabled()).toBe(true);
    expect(await page.locator('[data-test="step"]').textContent()).toContain(`/ ${SAMPLE_STEPS}`);
    await page.locator('[data-test="eta"]').waitFor({ timeout: 30_000 });
    // Live charts: loss, PSNR and splat count get points from the engine's metrics events.
    for (const metric of ['loss', 'psnr', 'splats']) await expect.poll(() => points(metric), { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    // The per-kernel table (the engine profiles every few seconds).
    await expect.poll(() => page.locator('[data-view="train"] [data-component="kernel-table"] tr[data-kernel]').count(), { timeout: 60_000 }).toBeGreaterThan(2);
    await page.screenshot({ path: path.join(screenshots, 'train-running.png') });

    // Pause: the job checkpoints and stops stepping.
    await expect.poll(step, { timeout: 60_000 }).toBeGreaterThanOrEqual(20);
    await page.locator('[data-view="train"] [data-action="pause"]').click();
    await expect.poll(jobState, { timeout: 60_000 }).toBe('paused');
    const pausedAt = await step();
    const chartPoints = await points('loss');
    await page.screenshot({ path: path.join(screenshots, 'train-paused.png') });

    // The viewer shows the job's latest snapshot with the project's training cameras.
    await openView('viewer');
    const before = await (await viewerCanvas(1)).screenshot();
    expect(canvasStats(before).nonBackgroundFraction).toBeGreaterThan(0.002);
    expect(await page.locator('[data-toggle="frustums"]').isEnabled()).toBe(true);
    expect(Number(await page.locator('[data-test="splat-count"]').textContent())).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(screenshots, 'viewer-training-paused.png') });

    await openView('train');
    expect(await step()).toBe(pausedAt);
    expect(await points('loss')).toBe(chartPoints);
    await page.locator('[data-view="train"] [data-action="resume"]').click();
    await expect.poll(jobState, { timeout: 60_000 }).toBe('running');
    await expect.poll(step, { timeout: 120_000 }).toBeGreaterThanOrEqual(Math.min(SAMPLE_STEPS - 20, pausedAt + 60));
    await page.locator('[data-view="train"] [data-action="stop"]').click();
    await expect.poll(jobState, { timeout: 60_000 }).toBe('stopped');
    expect(await page.locator('[data-view="train"] [data-action="resume"]').isEnabled()).toBe(true);
    expect(await points('loss')).toBeGreaterThan(chartPoints);
    await page.screenshot({ path: path.join(screenshots, 'train-stopped.png') });

    // Same view, later splats: the picture changed.
    await openView('viewer');
    const after = await (await viewerCanvas(pausedAt + 40)).screenshot();
    await page.screenshot({ path: path.join(screenshots, 'viewer-training-stopped.png') });
    expect(changedFraction(before, after)).toBeGreaterThan(0.005);

    // Clicking a camera's frustum looks through it and puts that view's photo beside the render.
    await page.locator('[data-toggle="splats"]').click();
    await page.waitForTimeout(800);
    const canvasBox = (await page.locator('canvas.viewer-canvas').boundingBox())!;
    const spots = frustumSpots(await page.locator('canvas.viewer-canvas').screenshot()).filter((p) => p.y > 60 && p.y < canvasBox.height - 60);
    expect(spots.length).toBeGreaterThan(0);
    // A spot of a frustum's colour may be a pixel of its line the picking ray misses (a line one
    // pixel wide, drawn antialiased): the first spots in turn until one looks through its camera
    const mode = () => page.locator('[data-component="splat-viewer"]').getAttribute('data-mode');
    for (const spot of spots.slice(0, 6)) {
      await page.locator('canvas.viewer-canvas').click({ position: { x: spot.x, y: spot.y } });
      if (await expect.poll(mode, { timeout: 2_000 }).toBe('fly').then(() => true, () => false)) break;
    }
    expect(await mode()).toBe('fly');
    expect(await page.locator('.camera-select').inputValue()).toMatch(/^\d+$/);
    await page.locator('[data-test="photo-pane"] img[data-test="photo"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-toggle="splats"]').click();
    await page.waitForTimeout(1000);
    await page.screenshot({ path: path.join(screenshots, 'viewer-training-clicked-camera.png') });
    expect(problems.errors).toEqual([]);
  }, 420_000);

  it.skipIf(!existsSync(STATUE))('trains a COLMAP dataset as a project briefly, compares a render with its photo, and exports a PLY with the trained splat count', async () => {
    const project = (await callEngine(studio, 'projects', 'create', { source: { kind: 'dataset', dir: STATUE }, dir: temp, name: 'statue' })) as { path: string };
    expect(project.path).toBe(path.join(temp, 'statue.argo'));
    // Started by a second client: the studio follows any job while its own is not running.
    const { job } = (await callEngine(studio, 'train', 'start', { source: { kind: 'project', path: project.path }, params: { 'train.iterations': 30, 'train.downscale': 8 } })) as { job: string };
    await openView('train');
    await expect.poll(() => page.locator('[data-test="job-state"] .job-id').textContent(), { timeout: 30_000 }).toContain(job);
    await expect.poll(jobState, { timeout: 180_000 }).toBe('finished');
    const trainedSplats = Number((await page.locator('[data-view="train"] .metrics-chart[data-metric="splats"] [data-latest]').textContent())?.replace(/,/g, ''));
    // The final evaluation's held-out views (every 8th of the 23 photos by name), worst PSNR first.
    const testViews = page.locator('[data-section="test-views"] tbody tr');
    await expect.poll(() => testViews.count(), { timeout: 30_000 }).toBe(3);
    const viewNames = await Promise.all((await testViews.all()).map((row) => row.getAttribute('data-view')));
    expect([...viewNames].sort()).toEqual(['DSC_5283.jpg', 'DSC_5291.jpg', 'DSC_5299.jpg']);
    const viewPsnrs = (await testViews.locator('td:nth-child(2)').allTextContents()).map((t) => Number.parseFloat(t));
    expect(viewPsnrs.every(Number.isFinite)).toBe(true);
    expect(viewPsnrs).toEqual([...viewPsnrs].sort((a, b) => a - b));
    await page.screenshot({ path: path.join(screenshots, 'train-statue-finished.png') });

    // The viewer has the project's 23 cameras; looking through one puts its photo beside the render.
    await openView('viewer');
    await page.locator('[data-component="splat-viewer"][data-ready="true"]').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('.camera-select option').count(), { timeout: 30_000 }).toBe(24);
    await page.locator('.camera-select').selectOption('4');
    const photo = page.locator('[data-test="photo-pane"] img[data-test="photo"]');
    await photo.waitFor({ timeout: 30_000 });
    await expect.poll(() => page.evaluate('document.querySelector(\'[data-test="photo"]\').naturalWidth')).toBeGreaterThan(100);
    expect(await page.locator('[data-test="photo-pane"] figcaption').textContent()).toMatch(/DSC_\d+\.jpg/);
    // Render and photo share the camera's aspect ratio (1000 x ~658).
    const renderBox = (await page.locator('.render-pane .frame').boundingBox())!;
    const photoBox = (await page.locator('.photo-pane .frame').boundingBox())!;
    expect(Math.abs(renderBox.width / renderBox.height - photoBox.width / photoBox.height)).toBeLessThan(0.02);
    expect(renderBox.width / renderBox.height).toBeGreaterThan(1.4);
    await page.waitForTimeout(1000);
    const render = canvasStats(await page.locator('canvas.viewer-canvas').screenshot());
    expect(render.nonBackgroundFraction).toBeGreaterThan(0.05);
    await page.screenshot({ path: path.join(screenshots, 'viewer-compare.png') });

    // Export through the export service: a standard 3DGS PLY with the trained splats.
    const out = path.join(temp, 'statue.ply');
    const result = (await callEngine(studio, 'export', 'splats', { project: project.path, format: 'ply', path: out })) as { path: string; bytes: number; splats: number };
    const bytes = readFileSync(out);
    expect(result).toMatchObject({ path: out, bytes: bytes.length });
    const headerEnd = bytes.indexOf('end_header\n');
    expect(headerEnd).toBeGreaterThan(0);
    const header = bytes.subarray(0, headerEnd).toString('latin1').split('\n');
    expect(header[0]).toBe('ply');
    expect(header[1]).toBe('format binary_little_endian 1.0');
    const vertices = Number(header.find((l) => l.startsWith('element vertex '))?.split(' ')[2]);
    const properties = header.filter((l) => l.startsWith('property float ')).map((l) => l.split(' ')[2]);
    for (const name of ['x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3']) expect(properties).toContain(name);
    expect(vertices).toBe(result.splats);
    expect(vertices).toBe(trainedSplats);
    expect(bytes.length - (headerEnd + 'end_header\n'.length)).toBe(vertices * properties.length * 4);
    expect(problems.errors).toEqual([]);
  }, 300_000);
});
