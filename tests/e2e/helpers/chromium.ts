/**
 * Debian's Chromium driven by playwright-core, for the end-to-end and in-browser component tests.
 *
 * - `/usr/bin/chromium` (apt-get install chromium); tests skip, printing why, when it is absent
 *   (override the path with ARGONAUT_CHROMIUM).
 * - Headless, a fresh profile per launch (Playwright gives the browser a new temporary
 *   --user-data-dir and deletes it on close), no sandbox (CI runs as root), no background traffic
 *   (component updates, sync, first-run pages): the tests reach nothing but 127.0.0.1.
 * - WebGL2 through SwiftShader (ANGLE's CPU Vulkan): `--use-angle=swiftshader` picks it and
 *   `--enable-unsafe-swiftshader` allows it for WebGL (Chromium 137+ refuses it otherwise).
 *   `--disable-gpu` is NOT passed: it would turn WebGL off altogether.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser as PlaywrightBrowser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.ARGONAUT_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--no-first-run',
  '--no-default-browser-check',
  '--metrics-recording-only',
  '--password-store=basic',
  '--use-mock-keychain',
];

/** Why browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  return `${CHROMIUM_PATH} not found: install Debian's Chromium (apt-get install -y chromium) or set ARGONAUT_CHROMIUM`;
}

/** Prints the reason once per test file when browser tests are skipped. */
export function reportSkip(file: string): boolean {
  const missing = chromiumMissing();
  if (missing) console.warn(`[skip] ${path.basename(file)}: ${missing}`);
  return Boolean(missing);
}

export interface Browser {
  browser: PlaywrightBrowser;
  /** A context with the test viewport; `browser.newContext()` makes others (no shared cookies). */
  context: BrowserContext;
  /** Closes the browser; kills it when it does not close within 15 s (a busy SwiftShader frame). */
  close(): Promise<void>;
}

export async function launchChromium(options: { width?: number; height?: number } = {}): Promise<Browser> {
  // A browser server (rather than launch()) keeps a handle on the process, to kill it if it hangs.
  const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
  const browser = await chromium.connect(server.wsEndpoint());
  const context = await browser.newContext({ viewport: { width: options.width ?? 1440, height: options.height ?? 900 }, deviceScaleFactor: 1 });
  return {
    browser,
    context,
    async close() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const closed = browser.close().then(() => server.close()).then(() => true, () => false);
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 15_000)));
      if (!(await Promise.race([closed, late]))) await server.kill();
      clearTimeout(timer);
    },
  };
}

/** Problems a page reported: console errors and warnings, uncaught exceptions, failed requests. */
export interface PageProblems {
  errors: string[];
  warnings: string[];
}

/**
 * Collects what a page complains about, so tests can assert it stayed quiet. Known, harmless
 * browser warnings can be ignored with `ignoreWarnings`.
 */
export function watchPage(page: Page, ignoreWarnings: RegExp[] = []): PageProblems {
  const problems: PageProblems = { errors: [], warnings: [] };
  page.on('console', (message: ConsoleMessage) => {
    const text = message.text();
    if (message.type() === 'error') problems.errors.push(text);
    else if (message.type() === 'warning' && !ignoreWarnings.some((re) => re.test(text))) problems.warnings.push(text);
  });
  page.on('pageerror', (error) => problems.errors.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => problems.errors.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? 'unknown'})`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.errors.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return problems;
}
