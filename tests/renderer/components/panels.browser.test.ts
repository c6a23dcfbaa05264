/**
 * The panels in Chromium (harness/panels.html): typing into ParamPanel fields, presets, advanced
 * sections and tooltips; LogConsole filtering and auto-scroll; KernelTable and TestViewsTable sorting; MetricsChart
 * appending; ErrorBanner actions. Skips, saying why, where /usr/bin/chromium is missing.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseParamValue } from '../../../shared/params/index.js';
import { ERROR_CODES } from '../../../shared/rpc/errors.js';
import { suggestionFor } from '../../../renderer/src/errors.js';
import { repoRoot } from '../../helpers/build.js';
import { launchChromium, reportSkip, watchPage, type Browser, type PageProblems } from '../../e2e/helpers/chromium.js';
import { SYNTHETIC_PARAMS } from '../fixtures/synthetic-params.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const skip = reportSkip(import.meta.filename);
const screenshots = path.join(repoRoot, 'test-output', 'screenshots');

describe.skipIf(skip)('panels in Chromium', () => {
  let harness: Harness;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    [harness, browser] = await Promise.all([startHarness('panels'), launchChromium({ width: 900, height: 900 })]);
    page = await browser.context.newPage();
    problems = watchPage(page);
    await page.goto(harness.url);
    await page.locator('[data-fixture="param-synthetic"] [data-param]').first().waitFor();
    mkdirSync(screenshots, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    expect(problems.errors).toEqual([]);
    await browser?.close();
    await harness?.close();
  });

  const synthetic = () => page.locator('[data-fixture="param-synthetic"]');
  const field = (key: string, root: Locator = synthetic()) => root.locator(`[data-param="${key}"]`);
  const model = async (root: Locator = synthetic()) => JSON.parse((await root.locator('[data-model]').textContent())!) as Record<string, unknown>;

  describe('ParamPanel', () => {
    it('shows the CLI message for invalid input and keeps it out of the model', async () => {
      const iterations = field('train.iterations');
      for (const raw of ['abc', '12.5', '50', '']) {
        await iterations.locator('input.number').fill(raw);
        let cli = '';
        try {
          parseParamValue(SYNTHETIC_PARAMS[0], raw);
        } catch (error) {
          cli = (error as Error).message.replace('--iterations: ', '');
        }
        expect(await iterations.locator('[data-error]').textContent(), raw).toBe(cli);
        expect((await model())['train.iterations']).toBe(30000);
        expect(await iterations.locator('input.number').getAttribute('aria-invalid')).toBe('true');
      }
      await synthetic().locator('[data-advanced="Training"] summary').click();
      await synthetic().locator('.param-panel').screenshot({ path: path.join(screenshots, 'param-panel-synthetic.png') });
      await synthetic().locator('[data-advanced="Training"] summary').click();
      expect(JSON.parse((await synthetic().locator('[data-validity]').textContent())!)).toHaveProperty('train.iterations');
      expect(await synthetic().locator('[data-panel-errors]').textContent()).toContain('1 field needs attention');
      await iterations.locator('input.number').fill('12000');
      expect(await iterations.locator('[data-error]').count()).toBe(0);
      expect((await model())['train.iterations']).toBe(12000);
      expect(JSON.parse((await synthetic().locator('[data-validity]').textContent())!)).toEqual({});
    });

    it('drives every control type: slider, switch, select, text', async () => {
      const ssim = field('train.ssimWeight');
      await ssim.locator('input.slider').fill('0.75');
      expect((await model())['train.ssimWeight']).toBe(0.75);
      expect(await ssim.locator('input.number').inputValue()).toBe('0.75');

      await field('train.densify').locator('.switch').click();
      expect((await model())['train.densify']).toBe(false);
      expect(await field('train.densify').locator('.switch-text').textContent()).toBe('Off');

      await field('train.background').locator('select').selectOption('white');
      expect((await model())['train.background']).toBe('white');

      await field('train.runName').locator('input.text').fill('first try');
      expect((await model())['train.runName']).toBe('first try');
    });

    it('applies presets to the parameters that name them and marks the active one', async () => {
      await synthetic().locator('[data-preset="fast"]').click();
      const values = await model();
      expect(values['train.iterations']).toBe(7000);
      expect(values['train.learningRate']).toBe(0.004);
      expect(values['train.shDegree']).toBe(1);
      expect(values['train.ssimWeight']).toBe(0.75); // no preset value: untouched
      expect(await field('train.iterations').locator('input.number').inputValue()).toBe('7000');
      expect(await synthetic().locator('[data-preset="fast"]').getAttribute('aria-pressed')).toBe('true');
      await field('train.iterations').locator('input.number').fill('7001');
      expect(await synthetic().locator('[data-preset="fast"]').getAttribute('aria-pressed')).toBe('false');
      expect(await synthetic().locator('.custom-note').textContent()).toBe('Custom');
    });

    it('keeps advanced parameters in collapsed sections until opened', async () => {
      const details = synthetic().locator('[data-advanced="Densification"]');
      expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      expect(await field('train.strategy').isVisible()).toBe(false);
      await details.locator('summary').click();
      expect(await field('train.strategy').isVisible()).toBe(true);
    });

    it('shows the help, range, default and flag as a tooltip on hover and focus', async () => {
      await field('train.iterations').locator('.hint').hover();
      const tip = page.locator('.tooltip');
      await tip.waitFor();
      const text = await tip.textContent();
      expect(text).toContain('Optimizer steps to run.');
      expect(text).toContain('Range: 100 to 100000 steps');
      expect(text).toContain('CLI: --iterations');
      await page.mouse.move(0, 0);
      expect(await tip.isVisible()).toBe(false);
      await field('train.runName').locator('.hint').focus();
      expect(await tip.textContent()).toContain('env ARGONAUT_RUN_NAME');
    });

    it('resets to defaults', async () => {
      await synthetic().locator('[data-action="reset-params"]').click();
      const values = await model();
      for (const def of SYNTHETIC_PARAMS) expect(values[def.key], def.key).toBe(def.default);
      expect(await synthetic().locator('[data-action="reset-params"]').isDisabled()).toBe(true);
    });

    it('works the same with the real registry', async () => {
      const real = page.locator('[data-fixture="param-real"]');
      await field('system.backend', real).locator('select').selectOption('opengl');
      await real.locator('[data-advanced="GPU"] summary').click();
      await field('system.profile', real).locator('.switch').click();
      const values = await model(real);
      expect(values['system.backend']).toBe('opengl');
      expect(values['system.profile']).toBe(true);
    });
  });

  describe('LogConsole', () => {
    const log = () => page.locator('[data-fixture="log"]');
    const lines = () => log().locator('.log-line');

    it('shows lines at or above the chosen level and filters by text', async () => {
      await page.evaluate('window.harness.addLogs(3, "debug", "dbg")');
      await page.evaluate('window.harness.addLogs(2, "info", "inf")');
      await page.evaluate('window.harness.addLogs(1, "error", "err")');
      expect(await lines().count()).toBe(3);
      await log().locator('.level-button[data-level="debug"]').click();
      expect(await lines().count()).toBe(6);
      await log().locator('.level-button[data-level="error"]').click();
      expect(await lines().count()).toBe(1);
      expect(await lines().first().getAttribute('data-level')).toBe('error');
      await log().locator('.level-button[data-level="debug"]').click();
      await log().locator('.log-search').fill('inf');
      expect(await lines().count()).toBe(2);
      await log().locator('.log-search').fill('');
    });

    it('follows new lines at the bottom, and offers a jump back after scrolling up', async () => {
      await page.evaluate('window.harness.addLogs(200, "info", "bulk")');
      const list = log().locator('.log-lines');
      const gap = (el: Element) => el.scrollHeight - el.scrollTop - el.clientHeight;
      await expect.poll(() => list.evaluate(gap)).toBeLessThan(2);
      await list.evaluate((el) => {
        el.scrollTop = 0;
        el.dispatchEvent(new Event('scroll'));
      });
      await page.evaluate('window.harness.addLogs(5, "warn", "late")');
      const jump = log().locator('.jump');
      await jump.waitFor();
      expect(await jump.textContent()).toContain('5 new');
      expect(await list.evaluate((el) => el.scrollTop)).toBe(0);
      await jump.click();
      await expect.poll(() => list.evaluate(gap)).toBeLessThan(2);
      await log().locator('button', { hasText: 'Clear' }).click();
      expect(await lines().count()).toBe(0);
    });
  });

  describe('TestViewsTable', () => {
    const table = () => page.locator('[data-fixture="test-views"]');
    const views = async () => table().locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.view));

    it('opens worst PSNR first, and sorts by any column on a click, the same column flipping', async () => {
      expect(await views()).toEqual(['frame_0000.jpg', 'frame_0016.jpg', 'frame_0008.jpg']);
      expect(await table().locator('[data-view="frame_0000.jpg"]').getAttribute('class')).toContain('below');
      await table().locator('[data-sort="ssim"]').click();
      expect(await views()).toEqual(['frame_0000.jpg', 'frame_0008.jpg', 'frame_0016.jpg']);
      await table().locator('[data-sort="ssim"]').click();
      expect(await views()).toEqual(['frame_0016.jpg', 'frame_0008.jpg', 'frame_0000.jpg']);
      expect(await table().locator('th[aria-sort="descending"]').textContent()).toContain('SSIM');
      await table().locator('[data-sort="ccPsnr"]').click();
      expect(await views()).toEqual(['frame_0016.jpg', 'frame_0000.jpg', 'frame_0008.jpg']);
      await table().screenshot({ path: path.join(screenshots, 'test-views-table-harness.png') });
    });
  });

  describe('KernelTable', () => {
    const table = () => page.locator('[data-fixture="kernels"]');
    const kernels = async () => table().locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.kernel));

    it('lists each kernel with total, calls, average and share, by total time first', async () => {
      expect(await kernels()).toEqual(['rasterize_forward', 'radix_sort', 'project']);
      const cells = await table().locator('[data-kernel="radix_sort"] td').allTextContents();
      expect(cells.map((c) => c.trim())).toEqual(['radix_sort', '3.000', '400', '0.0075', '30.0']);
      expect(await table().locator('tfoot td').allTextContents()).toEqual(['Total', '10.000', '600', '', '100.0']);
      expect(await table().locator('[data-summary]').textContent()).toContain('80.0% busy');
      await table().screenshot({ path: path.join(screenshots, 'kernel-table-harness.png') });
    });

    it('sorts by any column, toggling the direction', async () => {
      await table().locator('[data-sort="calls"]').click();
      expect(await kernels()).toEqual(['radix_sort', 'rasterize_forward', 'project']);
      await table().locator('[data-sort="calls"]').click();
      expect((await kernels())[0]).toBe('rasterize_forward');
      await table().locator('[data-sort="kernel"]').click();
      expect(await kernels()).toEqual(['project', 'radix_sort', 'rasterize_forward']);
      expect(await table().locator('th[aria-sort="ascending"]').count()).toBe(1);
    });

    it('says when there is nothing to show', async () => {
      expect(await page.locator('[data-fixture="kernels-empty"]').textContent()).toContain('Nothing measured.');
    });
  });

  describe('MetricsChart', () => {
    const chart = () => page.locator('[data-fixture="chart"] [data-metric="loss"]');

    it('appends points as they arrive and shows the latest value', async () => {
      expect(await chart().getAttribute('data-points')).toBe('0');
      await page.evaluate('window.harness.appendMetrics(1, 100)');
      await expect.poll(() => chart().getAttribute('data-points')).toBe('100');
      await page.evaluate('window.harness.appendMetrics(101, 4900)');
      await expect.poll(() => chart().getAttribute('data-points')).toBe('5000');
      expect(Number(await chart().locator('[data-latest]').textContent())).toBeCloseTo(0.5 / (1 + 5000 / 50), 3);
      await page.waitForTimeout(100);
      await chart().screenshot({ path: path.join(screenshots, 'metrics-chart-harness.png') });
      await page.evaluate('window.harness.clearMetrics()');
      await expect.poll(() => chart().getAttribute('data-points')).toBe('0');
    });
  });

  describe('ErrorBanner', () => {
    it('shows every error code with its message, a suggested action and working buttons', async () => {
      const banners = page.locator('[data-fixture="banners"] .error-banner');
      expect(await banners.count()).toBe(ERROR_CODES.length);
      for (const code of ERROR_CODES) {
        const banner = page.locator(`[data-fixture="banners"] .error-banner[data-code="${code}"]`);
        expect(await banner.getAttribute('role')).toBe('alert');
        expect(await banner.locator('[data-message]').textContent()).toBe(`something about ${code}`);
        expect(await banner.locator('[data-suggestion]').textContent()).toBe(suggestionFor(code).text);
      }
      await page.locator('[data-fixture="banners"] .error-banner[data-code="no_gpu"]').getByRole('button', { name: 'GPU settings' }).click();
      await page.locator('[data-fixture="banners"] .error-banner[data-code="internal"]').getByRole('button', { name: 'Open log' }).click();
      await page.locator('[data-fixture="banners"] .error-banner[data-code="busy"]').getByRole('button', { name: 'Dismiss' }).click();
      expect((await page.locator('[data-events]').textContent())!.split('\n')).toEqual(['go settings', 'log internal', 'dismiss busy']);
    });
  });
});
