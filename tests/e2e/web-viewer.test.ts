/**
 * The web viewer export in Debian's Chromium: a project whose splats lie on a sphere (warm top,
 * cool bottom: tests/helpers/mesh-project.ts) with a saved orbit path, exported as a folder and
 * as one HTML file, opened from disk (file://: the case that forbids fetch) and over a tiny
 * static server on 127.0.0.1. Each must draw the scene (the sphere's colours on screen, the centre
 * unlike the background) without console errors; the path player must move the camera (two
 * times on the path give different pictures). Screenshots land in test-output/screenshots/
 * (look at them). Needs the built viewer (out/web-viewer: `node scripts/build.mjs --node`).
 */
import { mkdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Project } from '../../main/engine/project/project.js';
import { exportProjectWeb } from '../../main/engine/project/web-export.js';
import { orbitPath } from '../../shared/scene/camera-path-sample.js';
import { repoRoot } from '../helpers/build.js';
import { tempDir } from '../helpers/datasets.js';
import { sphereProject } from '../helpers/mesh-project.js';
import { launchChromium, reportSkip, watchPage, type Browser } from './helpers/chromium.js';
import { expectScene, meanDifference, viewerStatus, waitForScene } from './helpers/web-viewer-page.js';

const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');
const VIEWPORT = { width: 800, height: 560 };
describe.skipIf(skip)('the web viewer export in Chromium', () => {
  let dir: string;
  let folder: string;
  let single: string;
  let browser: Browser | undefined;
  let server: Server | undefined;
  let serverUrl: string;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    dir = await tempDir('e2e-web-viewer');
    const file = (await sphereProject(path.join(dir, 'ball.argo'), { splats: 1500, views: 6 })).file;
    const project = await Project.open(file);
    // Around the z axis, across the poles of the sphere's two halves (split at y = 0): a quarter
    // turn goes from seeing both colours side by side to seeing the warm half alone.
    project.manifest.cameraPaths.push(orbitPath({ centre: [0, 0, 0], radius: 3.2, height: 0, up: [0, 0, 1], turns: 1, duration: 4, fovYDeg: 45, keyframes: 8, id: 'tour', name: 'Tour' }));
    await project.save();
    folder = path.join(dir, 'ball-web');
    await exportProjectWeb(project, folder);
    single = path.join(dir, 'ball.html');
    await exportProjectWeb(await Project.open(file), single, { singleFile: true });

    // The simplest static host: files by name from the folder, nothing else.
    server = createServer((request, response) => {
      const name = path.basename(new URL(request.url ?? '/', 'http://x').pathname) || 'index.html';
      readFile(path.join(folder, name)).then(
        (body) => response.writeHead(200, { 'content-type': name.endsWith('.html') ? 'text/html' : 'text/javascript' }).end(body),
        () => response.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`;
    browser = await launchChromium(VIEWPORT);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const [label, where] of [['file', () => pathToFileURL(path.join(folder, 'index.html')).href], ['http', () => serverUrl], ['single-file', () => pathToFileURL(single).href]] as const) {
    it(`shows the scene opened ${label === 'http' ? 'from a static server' : label === 'file' ? 'from disk (file://)' : 'as one HTML file from disk'}`, async () => {
      const page = await browser!.context.newPage();
      const problems = watchPage(page);
      await page.goto(where());
      const shot = await waitForScene(page, 1500);
      await page.screenshot({ path: path.join(screenshots, `web-viewer-${label}.png`) });
      expectScene(shot, label);
      expect(await page.title()).toBe('ball · Argonaut Studio');
      expect(await page.locator('#count').textContent()).toBe('1,500 splats');
      expect(problems.errors).toEqual([]);
      await page.close();
    }, 180_000);
  }

  it('plays the saved path: the dropdown lists it, a quarter turn on it shows another view, Play advances the clock', async () => {
    const page = await browser!.context.newPage();
    const problems = watchPage(page);
    await page.goto(pathToFileURL(path.join(folder, 'index.html')).href);
    await waitForScene(page, 1500);
    expect(await page.locator('#path option').allTextContents()).toEqual(['Free orbit', 'Tour (4.0 s)']);
    await page.locator('#path').selectOption('tour');
    await page.locator('#play').click(); // selecting plays; pause it to take pictures at chosen times
    const at = async (timeS: number) => {
      await page.evaluate(`(() => { const input = document.getElementById('time'); input.value = '${timeS}'; input.dispatchEvent(new Event('input')); })()`);
      await page.waitForTimeout(1500); // frames at the new pose, and a sort for it
      return page.locator('#scene').screenshot();
    };
    const start = await at(0);
    await page.screenshot({ path: path.join(screenshots, 'web-viewer-path-0s.png') });
    const quarter = await at(1);
    await page.screenshot({ path: path.join(screenshots, 'web-viewer-path-1s.png') });
    expect(await viewerStatus(page)).toMatchObject({ camera: 'tour', pathTimeS: 1 });
    expectScene(start, 'path at 0 s');
    expectScene(quarter, 'path at 1 s');
    const difference = meanDifference(start, quarter);
    console.log(`path: mean difference between 0 s and 1 s: ${difference.toFixed(2)}`);
    expect(difference).toBeGreaterThan(8);
    await page.locator('#play').click();
    await page.waitForTimeout(1000);
    expect((await viewerStatus(page)).pathTimeS).toBeGreaterThan(1.05);
    expect(await page.locator('#play').textContent()).toBe('Pause');
    // A drag on the scene hands the view back to the orbit camera.
    await page.mouse.move(400, 280);
    await page.mouse.down();
    await page.mouse.move(460, 300, { steps: 4 });
    await page.mouse.up();
    expect(await viewerStatus(page)).toMatchObject({ camera: 'orbit' });
    expect(problems.errors).toEqual([]);
    await page.close();
  }, 240_000);
});
