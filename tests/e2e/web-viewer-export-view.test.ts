/**
 * The Export view's Web viewer card end to end: the built renderer in Chromium against browser
 * mode and a real engine host; the sphere project (tests/helpers/mesh-project.ts) opened by path,
 * exported as a web viewer folder beside it, that folder opened from disk in the same browser and
 * its pixels checked; a second export into the now non-empty folder shows the refusal, and the
 * "replace" box lets it through. Screenshots in test-output/screenshots/ (look at them).
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/build.js';
import { tempDir } from '../helpers/datasets.js';
import { sphereProject } from '../helpers/mesh-project.js';
import { reportSkip, type PageProblems } from './helpers/chromium.js';
import { openStudioSession, type StudioSession } from './helpers/studio.js';
import { expectScene, waitForScene } from './helpers/web-viewer-page.js';

const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');

describe.skipIf(skip)('the Export view writes a web viewer that opens from disk', () => {
  let dir: string;
  let ball: string;
  let session: StudioSession | undefined;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    dir = await tempDir('e2e-web-export-view');
    ball = (await sphereProject(path.join(dir, 'ball.argo'))).file;
    session = await openStudioSession({ env: { ARGONAUT_STATE_DIR: path.join(dir, 'state') } });
    ({ page, problems } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exports the folder from the Export view, shows it in a browser, and refuses then replaces a non-empty folder', async () => {
    await page.locator('[data-nav="home"]').click();
    await page.locator('[data-action="open-project"]').click();
    await page.locator('input[name="open-path"]').fill(ball);
    await page.locator('[data-action="open-path"]').click();
    await expect.poll(() => page.locator('[data-field="project-name"]').textContent()).toBe('ball');
    await page.locator('[data-action="export-project"]').click();
    await page.locator('[data-view="export"]').waitFor();

    const folder = path.join(dir, 'ball-web');
    expect(await page.locator('input[name="path-web"]').getAttribute('placeholder')).toBe(folder);
    await page.locator('[data-action="export-web"]').click();
    const line = page.locator('[data-format="web"] [data-field="web-result"]');
    await line.waitFor({ timeout: 60_000 });
    expect(await line.textContent()).toContain('1,500 splats and 0 camera path(s)');
    await page.locator('[data-format="web"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(screenshots, 'export-web-viewer.png') });
    expect(readdirSync(folder).sort()).toEqual(['index.html', 'scene.js', 'viewer.js']);

    const viewer = await session!.browser.context.newPage();
    await viewer.setViewportSize({ width: 800, height: 560 });
    await viewer.goto(pathToFileURL(path.join(folder, 'index.html')).href);
    const shot = await waitForScene(viewer, 1500);
    await viewer.screenshot({ path: path.join(screenshots, 'export-web-viewer-opened.png') });
    expectScene(shot, 'exported from the Export view');
    await viewer.close();

    // The folder is not empty now: refused by name, shown where it happened; "replace" lets it through.
    await page.locator('[data-action="export-web"]').click();
    await expect.poll(() => page.locator('[data-view="export"]').textContent(), { timeout: 30_000 }).toMatch(/ball-web: the folder is not empty/);
    await page.locator('[data-view="export"] .view-header').scrollIntoViewIfNeeded(); // the notices sit under the header
    await page.screenshot({ path: path.join(screenshots, 'export-web-viewer-not-empty.png') });
    await page.locator('input[name="web-force"]').check();
    await page.locator('[data-action="export-web"]').click();
    await expect.poll(() => page.locator('[data-format="web"] [data-field="web-result"]').textContent(), { timeout: 60_000 }).toContain('1,500 splats');
    expect(readdirSync(dir).filter((f) => f.startsWith('.ball-web'))).toEqual([]);
    expect(problems.errors.filter((e) => !/the folder is not empty/.test(e))).toEqual([]);
  }, 240_000);
});
