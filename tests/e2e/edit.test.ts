/**
 * Editing end to end (issue 17): the built renderer in Debian's Chromium against browser mode and a
 * real engine host. A project whose 1,500 splats lie on a sphere is opened and shown in the Viewer;
 * in edit mode a dragged rectangle and a brush stroke select splats (the engine's edits.select on
 * the view's camera), Delete removes them, Ctrl+Z and Ctrl+Shift+Z undo and redo, the PLY export
 * holds exactly the splats left; floater removal is previewed (count per reason, red in the view)
 * and applied. Screenshots land in test-output/screenshots/ (look at them).
 */
import { mkdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/build.js';
import { tempDir } from '../helpers/datasets.js';
import { sphereProject } from '../helpers/mesh-project.js';
import { reportSkip, type PageProblems } from './helpers/chromium.js';
import { canvasStats } from './helpers/pixels.js';
import { openStudioSession, type StudioSession } from './helpers/studio.js';

const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');
const SPLATS = 1500;

/** The vertex count a PLY's header declares. */
async function plyVertexCount(file: string): Promise<number> {
  const handle = await open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    const header = buffer.subarray(0, bytesRead).toString('latin1');
    const match = /element vertex (\d+)/.exec(header);
    if (!match) throw new Error(`${file}: no "element vertex" line in its header`);
    return Number(match[1]);
  } finally {
    await handle.close();
  }
}

describe.skipIf(skip)('editing in the Viewer in Chromium against a real engine host', () => {
  let dir: string;
  let session: StudioSession | undefined;
  let page: Page;
  let problems: PageProblems;
  let ball: string;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    dir = await tempDir('e2e-edit');
    ball = (await sphereProject(path.join(dir, 'ball.argo'), { splats: SPLATS })).file;
    session = await openStudioSession({ env: { ARGONAUT_STATE_DIR: path.join(dir, 'state') } });
    ({ page, problems } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const count = async (name: string) => Number(((await page.locator(`[data-test="${name}"]`).textContent()) ?? '').replace(/,/g, ''));
  const idle = () => page.locator('.viewer-area[data-busy="false"]').waitFor();
  const canvas = () => page.locator('[data-view="viewer"] canvas.viewer-canvas');

  /** A left-button drag over the viewer canvas through fractions of its size. */
  async function drag(points: [number, number][], modifiers: ('Shift' | 'Control')[] = []) {
    const box = (await canvas().boundingBox())!;
    const at = ([fx, fy]: [number, number]) => [box.x + fx * box.width, box.y + fy * box.height] as const;
    for (const m of modifiers) await page.keyboard.down(m);
    await page.mouse.move(...at(points[0]));
    await page.mouse.down();
    for (const p of points.slice(1)) await page.mouse.move(...at(p), { steps: 8 });
    await page.mouse.up();
    for (const m of modifiers) await page.keyboard.up(m);
  }

  async function exportPly(name: string): Promise<number> {
    await page.locator('[data-nav="export"]').click();
    await page.locator('[data-view="export"]').waitFor();
    const file = path.join(dir, name);
    await page.locator('input[name="path-ply"]').fill(file);
    await page.locator('[data-export="ply"]').click();
    const line = page.locator('[data-format="ply"] [data-field="splat-result"]');
    await expect.poll(async () => (await line.count()) > 0 && ((await line.textContent()) ?? '').includes(file), { timeout: 30_000 }).toBe(true);
    const shown = Number(/([\d,]+) splats/.exec((await line.textContent())!)![1].replace(/,/g, ''));
    expect(await plyVertexCount(file)).toBe(shown);
    await page.locator('[data-nav="viewer"]').click();
    await page.locator('[data-view="viewer"]').waitFor();
    return shown;
  }

  it('opens the project in the Viewer and enters edit mode with the counts', async () => {
    await page.locator('[data-nav="home"]').click();
    await page.locator('[data-action="open-project"]').click();
    await page.locator('input[name="open-path"]').fill(ball);
    await page.locator('[data-action="open-path"]').click();
    await expect.poll(() => page.locator('[data-field="project-name"]').textContent()).toBe('ball');
    await page.locator('[data-action="view-project"]').click();
    await page.locator('[data-view="viewer"] [data-component="splat-viewer"][data-ready="true"]').waitFor({ timeout: 30_000 });
    await expect.poll(async () => canvasStats(await canvas().screenshot()).nonBackgroundFraction, { timeout: 20_000 }).toBeGreaterThan(0.02);
    await page.locator('[data-action="edit-mode"]').click();
    await page.locator('[data-component="edit-panel"]').waitFor();
    await expect.poll(() => count('total-count')).toBe(SPLATS);
    expect(await count('visible-count')).toBe(SPLATS);
    expect(await count('selected-count')).toBe(0);
    // the view narrowed for the panel: SwiftShader redraws it at a few frames a second
    await expect.poll(async () => canvasStats(await canvas().screenshot()).nonBackgroundFraction, { timeout: 20_000 }).toBeGreaterThan(0.02);
    await page.screenshot({ path: path.join(screenshots, 'edit-mode.png') });
    expect(problems.errors).toEqual([]);
  }, 90_000);

  it('shows the box helper with its gizmo (X), crops to it, and undoes the crop from the history panel', async () => {
    await canvas().focus();
    await page.keyboard.press('x');
    await expect.poll(() => page.locator('[data-component="edit-tools"] [data-tool="box"]').getAttribute('aria-checked')).toBe('true');
    await page.locator('[data-action="crop"]').waitFor();
    await page.waitForTimeout(1500);
    await page.screenshot({ path: path.join(screenshots, 'edit-box-gizmo.png') });
    await page.locator('[data-action="crop"]').click();
    await expect.poll(() => page.locator('[data-test="history-list"] [data-op="crop"]').count(), { timeout: 20_000 }).toBe(1);
    await idle(); // the edited splats are loaded
    const kept = await count('visible-count');
    // the helper starts as a cube 0.4 of the content's diagonal wide: the sphere's caps stick out of it
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(SPLATS);
    await page.waitForTimeout(1000);
    await page.screenshot({ path: path.join(screenshots, 'edit-cropped.png') });
    await page.locator('[data-action="undo"]').click();
    await expect.poll(() => count('visible-count'), { timeout: 20_000 }).toBe(SPLATS);
    await page.locator('[data-component="edit-tools"] [data-tool="rect"]').click();
    expect(problems.errors).toEqual([]);
  }, 90_000);

  let afterRect = 0;
  it('selects with a dragged rectangle, deletes, undoes and redoes', async () => {
    await page.locator('[data-component="edit-tools"] [data-tool="rect"]').click();
    await drag([[0.25, 0.15], [0.5, 0.85]]); // the left half of the sphere (clear of the toolbars)
    await expect.poll(() => count('selected-count'), { timeout: 20_000 }).toBeGreaterThan(0);
    const selected = await count('selected-count');
    expect(selected).toBeLessThan(SPLATS);
    await idle();
    await page.waitForTimeout(1500); // the tinted splats reach the screen (SwiftShader draws on the CPU)
    await page.screenshot({ path: path.join(screenshots, 'edit-select-rect.png') });

    await canvas().focus();
    await page.keyboard.press('Delete');
    await expect.poll(() => count('visible-count'), { timeout: 20_000 }).toBe(SPLATS - selected);
    expect(await count('selected-count')).toBe(0);
    await expect.poll(() => page.locator('[data-test="history-list"] [data-state="applied"]').count()).toBe(1);
    expect(await page.locator('[data-test="history-list"] [data-op="delete"]').textContent()).toContain(`Delete ${selected.toLocaleString('en-US')} splats`);
    await page.waitForTimeout(1000);
    await page.screenshot({ path: path.join(screenshots, 'edit-deleted.png') });

    await page.keyboard.press('Control+z');
    await expect.poll(() => count('visible-count'), { timeout: 20_000 }).toBe(SPLATS);
    expect(await page.locator('[data-test="history-list"] [data-state="undone"]').count()).toBe(1);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => count('visible-count'), { timeout: 20_000 }).toBe(SPLATS - selected);
    afterRect = SPLATS - selected;
    await page.waitForTimeout(1000);
    await page.screenshot({ path: path.join(screenshots, 'edit-undo-redo.png') });
    expect(problems.errors).toEqual([]);
  }, 120_000);

  it('selects with the brush (B), Shift adds a second stroke, Delete removes them; the PLY export holds what is left', async () => {
    await canvas().focus();
    await page.keyboard.press('b');
    await expect.poll(() => page.locator('[data-component="edit-tools"] [data-tool="brush"]').getAttribute('aria-checked')).toBe('true');
    await drag([[0.55, 0.4], [0.7, 0.45], [0.8, 0.5]]);
    await expect.poll(() => count('selected-count'), { timeout: 20_000 }).toBeGreaterThan(0);
    const first = await count('selected-count');
    await idle();
    await drag([[0.6, 0.7], [0.75, 0.75]], ['Shift']);
    await expect.poll(() => count('selected-count'), { timeout: 20_000 }).toBeGreaterThan(first);
    const selected = await count('selected-count');
    await idle();
    await page.waitForTimeout(1500);
    await page.screenshot({ path: path.join(screenshots, 'edit-select-brush.png') });
    await canvas().focus();
    await page.keyboard.press('Delete');
    await expect.poll(() => count('visible-count'), { timeout: 20_000 }).toBe(afterRect - selected);
    const exported = await exportPly('ball-edited.ply');
    expect(exported).toBe(afterRect - selected);
    expect(problems.errors).toEqual([]);
  }, 120_000);

  it('previews floater removal with its counts, then applies it', async () => {
    const before = await count('visible-count');
    await page.locator('[data-test="clean-strength"]').fill('0.6');
    await page.locator('[data-test="clean-preview"]').waitFor({ timeout: 30_000 });
    await idle();
    const previewed = await count('clean-count');
    expect(await page.locator('[data-test="clean-preview"] [data-reason]').count()).toBe(4);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: path.join(screenshots, 'edit-clean-preview.png') });
    // a moderate strength takes some of the sphere's splats (cut open by the deletes, its edges are sparse), not all
    expect(previewed).toBeGreaterThan(0);
    expect(previewed).toBeLessThan(before);
    await page.locator('[data-action="clean-apply"]').click();
    await expect.poll(() => count('visible-count'), { timeout: 20_000 }).toBe(before - previewed);
    expect(await page.locator('[data-test="history-list"] [data-op="clean"]').count()).toBe(1);
    await page.waitForTimeout(1000);
    await page.screenshot({ path: path.join(screenshots, 'edit-clean-applied.png') });
    expect(await exportPly('ball-cleaned.ply')).toBe(before - previewed);
    expect(problems.errors).toEqual([]);
  }, 120_000);

  it('transforms the scene from the transform tool (Up = view\'s up): the history holds it, the splats stay, undo takes it back', async () => {
    const before = await count('visible-count');
    await page.locator('[data-component="edit-tools"] [data-tool="transform"]').click();
    await page.locator('[data-action="up-from-view"]').click();
    await expect.poll(() => page.locator('[data-test="history-list"] [data-op="transform"]').count(), { timeout: 20_000 }).toBe(1);
    await idle();
    expect(await count('visible-count')).toBe(before);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: path.join(screenshots, 'edit-transform.png') });
    await page.locator('[data-action="undo"]').click();
    await expect.poll(() => page.locator('[data-test="history-list"] [data-state="undone"][data-op="transform"]').count(), { timeout: 20_000 }).toBe(1);
    expect(problems.errors).toEqual([]);
  }, 90_000);
});
