/**
 * A partitioned run started from the GUI (issue 19): the built renderer in Debian's Chromium
 * against browser mode and a real engine host. A tiny two-block project (never trained) is shown
 * in the Viewer, the Partition panel's Train blocks trains both blocks in the engine and merges
 * them (train.partitioned -> trainPartitioned), the table follows each block to finished, the
 * button waits for the job, and the manifest has the finished run. Screenshot in
 * test-output/screenshots/partition-trained.png.
 */
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartitionedProjectRun } from '../../main/engine/partition/block-status.js';
import { Project } from '../../main/engine/project/project.js';
import { repoRoot } from '../helpers/build.js';
import { tempDir } from '../helpers/datasets.js';
import { partitionedProject } from '../helpers/partitions.js';
import { reportSkip, type PageProblems } from './helpers/chromium.js';
import { openStudioSession, type StudioSession } from './helpers/studio.js';

const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');

describe.skipIf(skip)('Train blocks in Chromium against a real engine host', () => {
  let dir: string;
  let session: StudioSession | undefined;
  let page: Page;
  let problems: PageProblems;
  let file: string;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    dir = await tempDir('e2e-partition');
    file = (await partitionedProject(dir, { 'train.iterations': 20, 'train.checkpointEvery': 10 })).file;
    session = await openStudioSession({ env: { ARGONAUT_STATE_DIR: path.join(dir, 'state') } });
    ({ page, problems } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const panel = () => page.locator('[data-component="partition-panel"]');
  const train = () => panel().locator('[data-action="partition-train"]');

  it('trains both blocks in the engine from the Partition panel and merges them', async () => {
    await page.locator('[data-nav="home"]').click();
    await page.locator('[data-action="open-project"]').click();
    await page.locator('input[name="open-path"]').fill(file);
    await page.locator('[data-action="open-path"]').click();
    await expect.poll(() => page.locator('[data-field="project-name"]').textContent()).toBe('city');
    await page.locator('[data-action="view-project"]').click(); // not trained: its cameras and points
    await page.locator('[data-view="viewer"]').waitFor();
    await page.locator('[data-action="partition-panel"]').click();
    await panel().locator('tr[data-block="block-01"]').waitFor({ timeout: 30_000 });
    expect(await panel().locator('tr[data-block] .state').allTextContents()).toEqual(['not trained', 'not trained']);

    await panel().locator('input[name="partition-merge-fine-tune"]').fill('2');
    await train().click();
    await expect.poll(() => train().isDisabled(), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => panel().locator('tr[data-block][data-state="finished"]').count(), { timeout: 180_000 }).toBe(2);
    await expect.poll(() => panel().locator('[data-test="partition-merge"]').textContent(), { timeout: 60_000 }).toContain('Merge: finished');
    await expect.poll(() => train().isEnabled(), { timeout: 30_000 }).toBe(true);
    expect(await panel().locator('tr[data-block] td:nth-child(6)').allTextContents()).toEqual(['in-process', 'in-process']);
    await panel().screenshot({ path: path.join(screenshots, 'partition-trained.png') });

    const run = (await Project.open(file)).latestRun() as PartitionedProjectRun;
    expect(run).toMatchObject({ status: 'finished', partition: { partition: 'partition-001', queue: 'in-process', merge: { status: 'finished', fineTuneSteps: 2 } } });
    expect(run.partition.blocks.map((b) => [b.block, b.status, b.step])).toEqual([['block-00', 'finished', 20], ['block-01', 'finished', 20]]);
    // The Train view followed the job to its end.
    await page.locator('[data-nav="train"]').click();
    await expect.poll(() => page.locator('[data-test="job-state"]').getAttribute('data-state')).toBe('finished');
    expect(problems.errors).toEqual([]);
  }, 300_000);
});
