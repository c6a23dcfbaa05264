/**
 * Camera paths end to end (issue 17): the built renderer in Debian's Chromium against browser
 * mode and a real engine host. A project whose splats lie on a sphere is shown in the Viewer; the
 * camera-path panel generates an orbit of it, the timeline moves the view, the path is saved in
 * the project, and a 2-second video is rendered (real ffmpeg) whose frames ffprobe counts.
 * Screenshots land in test-output/screenshots/ (look at them).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/build.js';
import { installedTool } from '../helpers/capture.js';
import { tempDir } from '../helpers/datasets.js';
import { sphereProject } from '../helpers/mesh-project.js';
import { reportSkip, type PageProblems } from './helpers/chromium.js';
import { canvasStats } from './helpers/pixels.js';
import { openStudioSession, type StudioSession } from './helpers/studio.js';

const ffmpeg = installedTool('ffmpeg');
const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');

describe.skipIf(skip || !ffmpeg.available)('camera paths and video in Chromium against a real engine host', () => {
  let dir: string;
  let session: StudioSession | undefined;
  let page: Page;
  let problems: PageProblems;
  let ball: string;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    dir = await tempDir('e2e-paths');
    ball = (await sphereProject(path.join(dir, 'ball.argo'), { splats: 1500 })).file;
    session = await openStudioSession({ env: { ARGONAUT_STATE_DIR: path.join(dir, 'state'), PATH: [path.dirname(ffmpeg.path), process.env.PATH ?? ''].join(path.delimiter) } });
    ({ page, problems } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const canvas = () => page.locator('[data-view="viewer"] canvas.viewer-canvas');
  const field = (name: string) => page.locator(`[data-component="path-panel"] [name="${name}"]`);

  it('generates an orbit of the project, scrubs the timeline, saves the path in the project', async () => {
    await page.locator('[data-nav="home"]').click();
    await page.locator('[data-action="open-project"]').click();
    await page.locator('input[name="open-path"]').fill(ball);
    await page.locator('[data-action="open-path"]').click();
    await expect.poll(() => page.locator('[data-field="project-name"]').textContent()).toBe('ball');
    await page.locator('[data-action="view-project"]').click();
    await page.locator('[data-view="viewer"] [data-component="splat-viewer"][data-ready="true"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-action="paths-panel"]').click();
    await page.locator('[data-component="path-panel"]').waitFor();
    await expect.poll(() => page.locator('[data-test="path-problem"]').textContent()).toMatch(/at least two keyframes/);

    await page.locator('[data-action="path-orbit"]').click();
    await expect.poll(() => page.locator('[data-test="path-keyframes"] [data-keyframe]').count()).toBe(8);
    expect(await page.locator('[data-test="path-problem"]').count()).toBe(0);
    await field('path-duration').fill('2');
    await field('path-duration').press('Enter');
    await expect.poll(() => page.locator('[data-test="path-time"]').textContent()).toMatch(/\/ 2\.00 s/);

    // Scrubbing moves the view: the frames at 0 s and a quarter turn later differ, both show the ball.
    const scrub = async (t: number) => {
      await field('path-time').evaluate((el, value) => {
        (el as unknown as { value: string }).value = String(value);
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }, t);
      await page.waitForTimeout(1500); // SwiftShader draws on the CPU
      return canvas().screenshot();
    };
    const start = await scrub(0);
    const quarter = await scrub(0.5);
    expect(canvasStats(start).nonBackgroundFraction).toBeGreaterThan(0.02);
    expect(canvasStats(quarter).nonBackgroundFraction).toBeGreaterThan(0.02);
    expect(Buffer.compare(start, quarter)).not.toBe(0);
    await expect.poll(() => page.locator('[data-test="path-time"]').textContent()).toMatch(/^0\.50 \//);
    await page.screenshot({ path: path.join(screenshots, 'paths-orbit.png') });

    await page.locator('[data-action="path-save"]').click();
    await expect.poll(() => JSON.parse(readFileSync(ball, 'utf8')).cameraPaths.map((p: { id: string; duration: number }) => `${p.id} ${p.duration}`)).toEqual(['orbit 2']);
    expect(problems.errors).toEqual([]);
  }, 120_000);

  it('renders the 2-second orbit to an MP4 with a progress bar; ffprobe counts its frames', async () => {
    const out = path.join(dir, 'ball orbit.mp4');
    // What is being typed stays while the panel updates for something else (here the timeline's
    // time, moved while the field has focus): a late update once put 1280 back in the width before
    // Tab committed 64, and the video came out 1280 x 48.
    await field('video-width').fill('64');
    await field('path-time').evaluate((el) => {
      (el as unknown as { value: string }).value = '1';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await expect.poll(() => page.locator('[data-test="path-time"]').textContent()).toMatch(/^1\.00 \//);
    expect(await field('video-width').inputValue()).toBe('64');
    await field('video-width').press('Tab');
    await field('video-height').fill('48');
    await field('video-height').press('Tab');
    await field('video-fps').fill('30');
    await field('video-fps').press('Tab');
    await field('video-out').fill(out);
    await field('video-out').press('Tab');
    await page.locator('[data-action="path-render"]').click();
    await page.locator('[data-test="video-status"]').waitFor();
    await expect.poll(() => page.locator('[data-test="video-result"]').textContent(), { timeout: 60_000 }).toContain(out);
    expect(await page.locator('[data-test="video-result"]').textContent()).toMatch(/60 frames, 64×48 at 30 fps/);
    await page.screenshot({ path: path.join(screenshots, 'paths-rendered.png') });
    const probe = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_name,width,height,nb_read_frames:format=duration', '-of', 'json', out], { encoding: 'utf8' });
    const json = JSON.parse(probe);
    expect({ codec: json.streams[0].codec_name, width: json.streams[0].width, height: json.streams[0].height, frames: Number(json.streams[0].nb_read_frames), duration: Number(json.format.duration) }).toEqual({ codec: 'h264', width: 64, height: 48, frames: 60, duration: 2 });
    // A frame of the video shows the ball (not a black frame).
    const png = execFileSync('ffmpeg', ['-v', 'error', '-i', out, '-vf', 'select=eq(n\\,30)', '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1']);
    mkdirSync(screenshots, { recursive: true });
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', out, '-vf', 'select=eq(n\\,30),scale=256:192:flags=neighbor', '-frames:v', '1', path.join(screenshots, 'paths-video-frame30.png')]);
    const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', out, '-vf', 'select=eq(n\\,30)', '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1']);
    expect(png.length).toBeGreaterThan(100);
    expect(raw.filter((v) => v > 40).length / raw.length).toBeGreaterThan(0.05);
    expect(problems.errors).toEqual([]);
  }, 120_000);
});
