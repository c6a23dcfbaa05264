/**
 * The Babylon viewer in Chromium (WebGL2 on SwiftShader): it draws the sample scene, replaces
 * splats in place with bursts coalesced, and — the frame-convention proof — looking through an
 * OpenCV camera shows what that camera sees where it sees it (not mirrored, not upside down).
 */
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/build.js';
import { launchChromium, reportSkip, watchPage, type Browser, type PageProblems } from '../../e2e/helpers/chromium.js';
import { canvasStats, regionMean } from '../../e2e/helpers/pixels.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const skip = reportSkip(import.meta.filename);
/** Viewers disposed mid-update; ARGONAUT_DISPOSE_ROUNDS raises it to hunt the race. */
const DISPOSE_ROUNDS = Number(process.env.ARGONAUT_DISPOSE_ROUNDS ?? 8);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');

interface Stats {
  splatCount: number;
  fps: number;
  mode: string;
  lookingThrough: number | undefined;
  updatesApplied: number;
}

// SwiftShader renders on the CPU: generous time under CI load.
describe.skipIf(skip)('SplatViewer in Chromium', { timeout: 180_000 }, () => {
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    [harness, browser] = await Promise.all([startHarness('viewer'), launchChromium({ width: 480, height: 360 })]);
    page = await browser.context.newPage();
    problems = watchPage(page);
    await page.goto(harness.url);
    await page.locator('body[data-ready="true"]').waitFor();
  }, 120_000);

  afterAll(async () => {
    expect(problems.errors).toEqual([]);
    await browser?.close();
    await harness?.close();
  });

  const canvas = () => page.locator('#view').screenshot();

  it('draws the procedural sample scene', async () => {
    const stats = (await page.evaluate('window.harness.loadDemo()')) as Stats;
    expect(stats.splatCount).toBe(24000);
    await page.waitForTimeout(1000);
    const png = await canvas();
    const pixels = canvasStats(png);
    expect(pixels.distinctColours).toBeGreaterThan(200);
    expect(pixels.nonBackgroundFraction).toBeGreaterThan(0.05);
  });

  it('switches between orbit and fly without losing the view', async () => {
    expect(((await page.evaluate('window.harness.setMode("fly")')) as Stats).mode).toBe('fly');
    await page.waitForTimeout(300);
    expect(canvasStats(await canvas()).nonBackgroundFraction).toBeGreaterThan(0.05);
    expect(((await page.evaluate('window.harness.setMode("orbit")')) as Stats).mode).toBe('orbit');
    await page.waitForTimeout(300);
    expect(canvasStats(await canvas()).nonBackgroundFraction).toBeGreaterThan(0.05);
  });

  it('coalesces a burst of setSplats: every call resolves, the newest data is shown, fewer updates run', async () => {
    const before = ((await page.evaluate('window.harness.stats()')) as Stats).updatesApplied;
    const after = (await page.evaluate('window.harness.burst(8)')) as Stats;
    expect(after.splatCount).toBe(80);
    expect(after.updatesApplied - before).toBeGreaterThanOrEqual(1);
    expect(after.updatesApplied - before).toBeLessThan(8);
  });

  it('refuses a buffer too small for its count, naming the sizes', async () => {
    expect(await page.evaluate('window.harness.badBuffer()')).toBe('splat buffer: 2 splats need 64 bytes (32 each), got 40');
  });

  it('shows through an OpenCV camera what it sees where it sees it: red upper left, green lower right', async () => {
    const stats = (await page.evaluate('window.harness.frameTest()')) as Stats;
    expect(stats.lookingThrough).toBe(0);
    await page.waitForTimeout(1200);
    const png = await canvas();
    await page.locator('#view').screenshot({ path: path.join(screenshots, 'viewer-frame-test.png') });
    // The blobs sit at 1/4 and 3/4 of the image; each is about 1/10 of its width.
    const upperLeft = regionMean(png, 0.23, 0.23, 0.27, 0.27);
    const lowerRight = regionMean(png, 0.73, 0.73, 0.77, 0.77);
    const upperRight = regionMean(png, 0.6, 0.1, 0.9, 0.4);
    const lowerLeft = regionMean(png, 0.1, 0.6, 0.4, 0.9);
    expect(upperLeft[0]).toBeGreaterThan(100);
    expect(upperLeft[1]).toBeLessThan(60);
    expect(lowerRight[1]).toBeGreaterThan(100);
    expect(lowerRight[0]).toBeLessThan(60);
    for (const empty of [upperRight, lowerLeft]) expect(Math.max(...empty)).toBeLessThan(5);
  });

  it('gives edit mode the view as a pinhole camera that projects the blobs where they are drawn, and a box helper over the scene', async () => {
    const result = (await page.evaluate('window.harness.viewCameraTest()')) as { red: [number, number]; green: [number, number]; size: [number, number]; box: { kind: string; box: { centre: number[]; halfSize: number[] } } | undefined; centre: number[] };
    await page.waitForTimeout(1200);
    const png = await canvas();
    const around = ([fx, fy]: [number, number]) => regionMean(png, fx - 0.015, fy - 0.015, fx + 0.015, fy + 0.015);
    for (const f of [...result.red, ...result.green]) {
      expect(f).toBeGreaterThan(0.05); // both on screen
      expect(f).toBeLessThan(0.95);
    }
    const red = around(result.red);
    const green = around(result.green);
    expect(red[0]).toBeGreaterThan(100);
    expect(red[1]).toBeLessThan(60);
    expect(green[1]).toBeGreaterThan(100);
    expect(green[0]).toBeLessThan(60);
    expect(result.size).toEqual([480, 360]); // CSS pixels of the canvas
    expect(result.box?.kind).toBe('box');
    result.box!.box.centre.forEach((v, a) => expect(v).toBeCloseTo(result.centre[a], 5));
    expect(Math.min(...result.box!.box.halfSize)).toBeGreaterThan(0);
  });

  it('finds the training camera whose frustum is under the pointer (what a click looks through), and none elsewhere', async () => {
    const result = (await page.evaluate('window.harness.pickTest()')) as { hit: number | null; near: number | null; miss: number | null; hidden: number | null };
    expect(result).toEqual({ hit: 1, near: 1, miss: null, hidden: null });
  });

  // Its own page: the viewers it starts and disposes (a WebGL context each) leave the shared page's alone.
  it('can be disposed while its splats go up (the view left mid-update): nothing uncaught, every update settles', async () => {
    const own = await browser.context.newPage();
    const ownProblems = watchPage(own);
    try {
      await own.goto(harness.url);
      await own.locator('body[data-ready="true"]').waitFor();
      const { errors, settled } = (await own.evaluate(`window.harness.disposeMidUpdate(${DISPOSE_ROUNDS})`)) as { errors: string[]; settled: string[] };
      expect(errors).toEqual([]);
      expect(settled.filter((s) => s === 'pending'), settled.join(', ')).toEqual([]);
      expect(ownProblems.errors).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
