/**
 * The studio end to end: the built renderer in Debian's Chromium, served by browser mode
 * (`argonaut --browser`), talking to a real engine host on this machine's GPU adapter.
 * Screenshots of every view land in test-output/screenshots/ (look at them).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allParams, paramsForCommand } from '../../shared/params/index.js';
import { builtFile, repoRoot } from '../helpers/build.js';
import { reportSkip, type Browser, type PageProblems } from './helpers/chromium.js';
import { canvasStats } from './helpers/pixels.js';
import { callEngine, openStudioSession, type Studio, type StudioSession } from './helpers/studio.js';

const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');
const VIEWS = ['home', 'train', 'viewer', 'export', 'settings'] as const;
/** Tests that render the splat viewer: SwiftShader draws on the CPU, and under CI load every
 * interaction waits for slow frames. */
const VIEWER_TIMEOUT_MS = 180_000;

describe.skipIf(skip)('studio in Chromium against browser mode and a real engine host', () => {
  let session: StudioSession | undefined;
  let studio: Studio;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    // this suite's first test is the first load itself
    session = await openStudioSession({ navigate: false });
    ({ studio, browser, page, problems } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  async function openView(view: (typeof VIEWS)[number]) {
    await page.locator(`[data-nav="${view}"]`).click();
    await page.locator(`[data-view="${view}"]`).waitFor();
  }

  it('loads over the tokened URL and shows the GPU adapter the real engine reports', async () => {
    const info = JSON.parse(
      execFileSync(process.execPath, [builtFile('cli/index.mjs'), '--no-gui', 'info', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .trim()
        .split('\n')
        .at(-1)!,
    ) as { adapter: { name: string }; backend: string };

    const response = await page.goto(studio.url);
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.locator('[data-test="host-state"]').getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    const adapter = page.locator('[data-test="gpu-adapter"]');
    await adapter.waitFor();
    expect(await adapter.textContent()).toContain(info.adapter.name);
    expect(await adapter.textContent()).toContain(info.backend);
  });

  it('refuses a page without the token', async () => {
    // A new context: no session cookie from the first visit, and no token in the URL.
    const stranger = await browser.browser.newContext();
    const page = await stranger.newPage();
    const response = await page.goto(`${studio.origin}/`);
    expect(response?.status()).toBe(401);
    expect(await page.textContent('body')).toMatch(/needs the token/);
    expect(await page.locator('#app').count()).toBe(0);
    await stranger.close();
  });

  it('renders every view without console errors, and saves a screenshot of each', async () => {
    // Edit mode's chunk (loaded when a viewer starts) held back until the Viewer has been left: a
    // view left before its lazily loaded tools arrive (slow under load) must not build them on the
    // disposed viewer (e2e train saw 'uncaught: Cannot read properties of null (reading getEngine)')
    const editChunk = /\/assets\/edit-session-[^/]*\.js$/;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let editChunkHeld = false;
    await page.route(editChunk, async (route) => {
      editChunkHeld = true;
      await held;
      await route.continue();
    });
    for (const view of VIEWS) {
      await openView(view);
      if (view === 'viewer') await page.locator('[data-component="splat-viewer"][data-ready="true"]').waitFor({ timeout: 60_000 });
      if (view === 'export') {
        expect(editChunkHeld).toBe(true);
        const arrived = page.waitForResponse(editChunk);
        release();
        await arrived;
      }
      if (view === 'settings') await page.locator('[data-test="settings-adapter"]').waitFor();
      await page.waitForTimeout(view === 'viewer' ? 1500 : 200);
      await page.screenshot({ path: path.join(screenshots, `${view}.png`) });
    }
    await page.unroute(editChunk);
    expect(problems.errors).toEqual([]);
  }, VIEWER_TIMEOUT_MS);

  it('shows the procedural sample scene in the viewer: canvas pixels are not uniform', async () => {
    await openView('home');
    await page.locator('[data-action="open-sample"]').click();
    await page.locator('[data-view="viewer"]').waitFor();
    const viewer = page.locator('[data-component="splat-viewer"][data-ready="true"]');
    await viewer.waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('[data-test="splat-count"]').textContent(), { timeout: 10_000 }).toBe('24,000');
    await page.waitForTimeout(1000);
    const stats = canvasStats(await page.locator('canvas.viewer-canvas').screenshot());
    // The knot covers a good part of the view in many colours; the background is one colour.
    expect(stats.distinctColours).toBeGreaterThan(200);
    expect(stats.nonBackgroundFraction).toBeGreaterThan(0.03);
    expect(Number(await page.locator('[data-test="fps"]').textContent())).toBeGreaterThan(0);
  }, VIEWER_TIMEOUT_MS);

  it('drives the viewer: SfM points, camera frustums, fly mode, fit, looking through a training camera', async () => {
    const viewer = page.locator('[data-component="splat-viewer"]');
    await page.locator('[data-toggle="points"]').click();
    expect(await page.locator('[data-toggle="points"]').getAttribute('aria-pressed')).toBe('true');
    await page.locator('[data-toggle="splats"]').click();
    expect(await page.locator('[data-toggle="splats"]').getAttribute('aria-pressed')).toBe('false');
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(screenshots, 'viewer-points-cameras.png') });
    const pointsOnly = canvasStats(await page.locator('canvas.viewer-canvas').screenshot());
    expect(pointsOnly.nonBackgroundFraction).toBeGreaterThan(0.002);
    expect(pointsOnly.nonBackgroundFraction).toBeLessThan(0.1);
    await page.locator('[data-toggle="splats"]').click();
    await page.locator('[data-toggle="points"]').click();

    await page.locator('[data-mode-button="fly"]').click();
    await expect.poll(() => viewer.getAttribute('data-mode')).toBe('fly');
    await page.keyboard.down('w');
    await page.waitForTimeout(400);
    await page.keyboard.up('w');
    await page.locator('[data-action="fit"]').click();
    await page.locator('[data-mode-button="orbit"]').click();
    await expect.poll(() => viewer.getAttribute('data-mode')).toBe('orbit');

    await page.locator('.camera-select').selectOption('3');
    await expect.poll(() => viewer.getAttribute('data-mode')).toBe('fly');
    await page.waitForTimeout(1200);
    await page.screenshot({ path: path.join(screenshots, 'viewer-look-through.png') });
    const stats = canvasStats(await page.locator('canvas.viewer-canvas').screenshot());
    expect(stats.nonBackgroundFraction).toBeGreaterThan(0.05);
    expect(problems.errors).toEqual([]);
  }, VIEWER_TIMEOUT_MS);

  it('generates the Train view parameter panel from the registry: every train parameter is there', async () => {
    await openView('train');
    // Every train parameter but the engine host's own GPU options (system.*: Settings).
    const trainParams = paramsForCommand('train').filter((def) => !def.key.startsWith('system.'));
    for (const def of trainParams) await expect.poll(() => page.locator(`[data-view="train"] [data-param="${def.key}"]`).count()).toBe(1);
    const count = await page.locator('[data-view="train"] [data-param]').count();
    expect(count).toBe(trainParams.length);
    // The engine serves training now: no pending note, and Start is ready for the chosen sample scene.
    expect(await page.locator('[data-view="train"] [data-pending="train"]').count()).toBe(0);
    expect(await page.locator('[data-view="train"] [data-action="start"]').isEnabled()).toBe(true);
    expect(await page.locator('[data-test="train-source"]').textContent()).toContain('Sample scene');
    await page.screenshot({ path: path.join(screenshots, 'train-sample.png') });
    expect(allParams().length).toBeGreaterThan(0);
  });

  it('shows an error where it happened, with a suggested action', async () => {
    await openView('home');
    const drop = await page.evaluateHandle('(() => { const t = new DataTransfer(); t.items.add(new File(["x"], "walkaround.mp4", { type: "video/mp4" })); return t; })()');
    await page.locator('[data-view="home"]').dispatchEvent('drop', { dataTransfer: drop });
    const banner = page.locator('[data-view="home"] .error-banner');
    await banner.waitFor();
    expect(await banner.getAttribute('data-code')).toBe('unavailable');
    expect(await banner.locator('[data-message]').textContent()).toContain('walkaround.mp4');
    expect(await banner.locator('[data-suggestion]').textContent()).toMatch(/\w+/);
    await page.screenshot({ path: path.join(screenshots, 'home-error.png') });
    await banner.getByRole('button', { name: 'Dismiss' }).click();
    expect(await banner.count()).toBe(0);
  });

  it('keeps the theme across reloads (localStorage) and opens the log drawer from the status bar', async () => {
    await openView('settings');
    await page.locator('[data-theme-option="light"]').click();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
    await page.reload();
    await page.locator('[data-view="settings"]').waitFor();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
    await page.locator('[data-test="settings-adapter"]').waitFor();
    await page.locator('[data-test="log-toggle"]').click();
    const log = page.locator('.shell-log [data-component="log-console"]');
    await log.waitFor();
    await expect.poll(() => log.locator('.log-line').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(screenshots, 'settings-light-log.png') });
    await page.locator('[data-theme-option="dark"]').click();
    expect(problems.errors).toEqual([]);
  });

  it('follows the engine host through a crash and its restart', async () => {
    const { pid } = (await callEngine(studio, 'system', 'ping')) as { pid: number };
    process.kill(pid, 'SIGKILL');
    const host = page.locator('[data-test="host-state"]');
    await expect.poll(() => host.textContent(), { timeout: 30_000 }).toContain('1 restart');
    await expect.poll(() => host.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    const { pid: newPid } = (await callEngine(studio, 'system', 'ping')) as { pid: number };
    expect(newPid).not.toBe(pid);
    if ((await page.locator('[data-test="log-toggle"]').getAttribute('aria-pressed')) !== 'true') await page.locator('[data-test="log-toggle"]').click();
    await expect.poll(() => page.locator('.shell-log .log-line').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/engine host crashed/)]));
    await page.screenshot({ path: path.join(screenshots, 'host-restarted-log.png') });
    await page.locator('.shell-log [data-action="close-log"]').click();
  });

  it('says so when the connection to the studio server is lost', async () => {
    await studio.stop();
    const host = page.locator('[data-test="host-state"]');
    await expect.poll(() => host.getAttribute('data-state'), { timeout: 15_000 }).toBe('disconnected');
    expect(await page.locator('[data-test="connection-error"]').textContent()).toMatch(/Lost the connection to the engine/);
    await page.screenshot({ path: path.join(screenshots, 'disconnected.png') });
  });
});
