/**
 * Reading the exported web viewer's page in the e2e tests: its status (window.argonautViewer,
 * renderer/web-viewer/viewer.ts), waiting for the splats on screen, and what a picture of the
 * sphere project (tests/helpers/mesh-project.ts: warm top, cool bottom) must show.
 */
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { expect } from 'vitest';
import { canvasStats, regionMean } from './pixels.js';

/** The viewer's background (viewer.ts BACKGROUND) in bytes. */
export const BACKGROUND = [14, 16, 21];

/** Pixels of the sphere's two colours (mesh-project.ts: 0.85, 0.35, 0.2 on top, 0.2, 0.45, 0.85 below), shaded. */
export function sceneColourShares(png: Buffer): { warm: number; cool: number } {
  const { data, width, height } = PNG.sync.read(png);
  let warm = 0;
  let cool = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    if (r > 60 && r > g + 25 && r > b + 35) warm++;
    else if (b > 60 && b > r + 35 && b > g + 15) cool++;
  }
  return { warm: warm / (width * height), cool: cool / (width * height) };
}

/** Mean absolute difference of two same-sized screenshots, per channel (0..255). */
export function meanDifference(a: Buffer, b: Buffer): number {
  const x = PNG.sync.read(a);
  const y = PNG.sync.read(b);
  expect([x.width, x.height]).toEqual([y.width, y.height]);
  let sum = 0;
  for (let i = 0; i < x.data.length; i += 4) for (let c = 0; c < 3; c++) sum += Math.abs(x.data[i + c] - y.data[i + c]);
  return sum / ((x.data.length / 4) * 3);
}

export interface ViewerStatus {
  state: string;
  error?: string;
  splatCount: number;
  framesSinceLoad: number;
  camera: string;
  pathTimeS: number;
}

export async function viewerStatus(page: Page): Promise<ViewerStatus> {
  return page.evaluate('window.argonautViewer') as Promise<ViewerStatus>;
}

/** Waits for the splats to be on screen: the viewer ready, frames drawn, and a picture that is not the bare background. */
export async function waitForScene(page: Page, splatCount: number): Promise<Buffer> {
  // (strings: this file is type-checked without the DOM library)
  await page.waitForFunction("window.argonautViewer && (window.argonautViewer.state === 'error' || (window.argonautViewer.state === 'ready' && window.argonautViewer.framesSinceLoad > 3))", undefined, { timeout: 90_000 });
  const status = await viewerStatus(page);
  expect(status.error).toBeUndefined();
  expect(status).toMatchObject({ state: 'ready', splatCount });
  // Babylon sorts the splats in a worker: the first frames may come before the first sort.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const shot = await page.locator('#scene').screenshot();
    if (canvasStats(shot).nonBackgroundFraction > 0.02 || Date.now() > deadline) return shot;
    await page.waitForTimeout(500);
  }
}

export function expectScene(shot: Buffer, label: string): void {
  const stats = canvasStats(shot);
  const colours = sceneColourShares(shot);
  const centre = regionMean(shot, 0.45, 0.45, 0.55, 0.55);
  const centreDistance = Math.max(...centre.map((v, c) => Math.abs(v - BACKGROUND[c])));
  console.log(`${label}: ${JSON.stringify({ ...stats, ...colours, centre: centre.map(Math.round) })}`);
  expect(stats.nonBackgroundFraction, label).toBeGreaterThan(0.05);
  expect(centreDistance, `${label}: the centre is the background`).toBeGreaterThan(30);
  expect(colours.warm + colours.cool, `${label}: neither of the sphere's colours`).toBeGreaterThan(0.03);
}
