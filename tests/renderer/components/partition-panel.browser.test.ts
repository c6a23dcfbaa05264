/**
 * The Partition panel's Train blocks controls in Chromium (harness/partition.html, a scripted
 * engine behind the real contract runtime): the queue URL and merge fine-tune fields become the
 * `train.partitioned` call (the password from its own masked field), the button is disabled while the job it started runs and enabled once
 * it ends, block events fill the table, and a refusal (a wrong password) is a Viewer banner that
 * never shows the password. Skips, saying why, where /usr/bin/chromium is missing.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/build.js';
import { launchChromium, reportSkip, watchPage, type Browser, type PageProblems } from '../../e2e/helpers/chromium.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');

type HarnessApi = {
  calls(): Record<string, unknown>[];
  notices(): { code: string; message: string }[];
  job(job: string, state: string): void;
  block(job: string, block: string, status: string, step: number): void;
};

describe.skipIf(skip)('Partition panel: Train blocks', () => {
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    [harness, browser] = await Promise.all([startHarness('partition'), launchChromium({ width: 1100, height: 500 })]);
    page = await browser.context.newPage();
    problems = watchPage(page);
    await page.goto(harness.url);
    await page.locator('[data-test="partition-blocks"] tr[data-block="block-02"]').waitFor();
    mkdirSync(screenshots, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    expect(problems.errors).toEqual([]);
    await browser?.close();
    await harness?.close();
  });

  const train = () => page.locator('[data-action="partition-train"]');

  it('sends the queue URL and the fine-tune steps, is disabled while the job runs and enabled when it ends; block events fill the table', async () => {
    expect(await train().isEnabled()).toBe(true);
    await page.locator('input[name="partition-queue"]').fill('redis://queue:6379');
    await page.locator('input[name="partition-queue-password"]').fill('sesame');
    expect(await page.locator('input[name="partition-queue-password"]').getAttribute('type')).toBe('password');
    await page.locator('input[name="partition-merge-fine-tune"]').fill('200');
    await train().click();
    await page.waitForFunction(() => (window as unknown as { harness: HarnessApi }).harness.calls().length === 1);
    const [call] = await page.evaluate(() => (window as unknown as { harness: HarnessApi }).harness.calls());
    expect(call).toMatchObject({ project: '/p/city.argo', partition: 'partition-001', queue: 'redis://:sesame@queue:6379', mergeFineTune: 200 });
    expect(call!.params).toEqual({}); // the project's own parameters
    // The job started: the button waits for it.
    await page.waitForFunction(() => (document.querySelector('[data-action="partition-train"]') as HTMLButtonElement).disabled);
    await page.evaluate(() => {
      const h = (window as unknown as { harness: HarnessApi }).harness;
      h.job('job-1', 'running');
      h.block('job-1', 'block-01', 'running', 40);
    });
    await page.locator('tr[data-block="block-01"][data-state="running"]').waitFor();
    expect(await page.locator('tr[data-block="block-01"] td').nth(5).textContent()).toBe('in-process');
    expect(await train().isDisabled()).toBe(true);
    await page.locator('[data-component="partition-panel"]').screenshot({ path: path.join(screenshots, 'partition-train-blocks.png') });
    await page.evaluate(() => (window as unknown as { harness: HarnessApi }).harness.job('job-1', 'finished'));
    await page.waitForFunction(() => !(document.querySelector('[data-action="partition-train"]') as HTMLButtonElement).disabled);
  });

  it('a blank queue trains in the engine; a refused password is a Viewer banner without the password', async () => {
    await page.locator('input[name="partition-queue"]').fill('');
    await train().click();
    await page.waitForFunction(() => (window as unknown as { harness: HarnessApi }).harness.calls().length === 2);
    expect((await page.evaluate(() => (window as unknown as { harness: HarnessApi }).harness.calls()))[1]).not.toHaveProperty('queue');
    await page.evaluate(() => (window as unknown as { harness: HarnessApi }).harness.job('job-2', 'finished'));
    await page.waitForFunction(() => !(document.querySelector('[data-action="partition-train"]') as HTMLButtonElement).disabled);

    await page.locator('input[name="partition-queue"]').fill('redis://queue:6379');
    await page.locator('input[name="partition-queue-password"]').fill('wrong');
    await train().click();
    await page.waitForFunction(() => (window as unknown as { harness: HarnessApi }).harness.notices().length === 1);
    const [notice] = await page.evaluate(() => (window as unknown as { harness: HarnessApi }).harness.notices());
    expect(notice).toEqual({ code: 'bad_input', message: 'redis://:***@queue:6379: Redis refused the password (WRONGPASS): check the user and password in the queue URL' });
    expect(await train().isEnabled()).toBe(true); // no job started
  });
});
