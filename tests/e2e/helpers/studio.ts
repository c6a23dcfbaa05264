/**
 * Browser mode for real: `node out/cli/index.mjs --browser --port 0 --json` starts the built
 * studio (HTTP + WebSocket on 127.0.0.1 with a session token, and a supervised engine host on this
 * machine's GPU adapter, llvmpipe in CI). The URL comes from the command's JSON result line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { decodeMessage, encodeMessage } from '../../../shared/rpc/codec.js';
import type { Page } from 'playwright-core';
import { builtFile, repoRoot } from '../../helpers/build.js';
import { launchChromium, watchPage, type Browser, type PageProblems } from './chromium.js';

export interface Studio {
  /** The tokened URL the CLI printed. */
  url: string;
  origin: string;
  port: number;
  /** What the CLI wrote on stderr (host state changes, warnings). */
  stderr: string[];
  stop(): Promise<void>;
}

export async function startStudio(options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Studio> {
  builtFile('renderer/index.html');
  const child: ChildProcess = spawn(process.execPath, [builtFile('cli/index.mjs'), '--browser', '--port', '0', '--json'], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));

  const result = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`browser mode did not print its URL within ${options.timeoutMs ?? 60_000} ms; stderr:\n${stderr.join('\n')}`)), options.timeoutMs ?? 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let message: { type?: string; url?: string; port?: number };
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.type === 'result' && message.url && message.port) {
        clearTimeout(timer);
        resolve({ url: message.url, port: message.port });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited with ${code} before printing its URL; stderr:\n${stderr.join('\n')}`));
    });
  });

  return {
    url: result.url,
    origin: new URL(result.url).origin,
    port: result.port,
    stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGINT');
      }),
  };
}

/** One contract call over the studio's own WebSocket (with the token), as a second client. */
export async function callEngine(studio: Studio, service: string, method: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const token = new URL(studio.url).searchParams.get('token')!;
  const ws = new WebSocket(`ws://127.0.0.1:${studio.port}/rpc`, ['argonaut', `token.${token}`], { headers: { origin: studio.origin } });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return await new Promise((resolve, reject) => {
      ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
        const message = decodeMessage(isBinary ? new Uint8Array(data as Buffer) : data.toString()) as { kind: string; id: number; ok: boolean; result?: unknown; error?: unknown };
        if (message.kind !== 'res' || message.id !== 1) return;
        if (message.ok) resolve(message.result);
        else reject(new Error(JSON.stringify(message.error)));
      });
      ws.send(encodeMessage({ kind: 'req', id: 1, service, method, args }));
    });
  } finally {
    ws.close();
  }
}

/** A studio in browser mode, Chromium, and a page on it (with the engine host ready, unless `navigate: false`). */
export interface StudioSession {
  studio: Studio;
  browser: Browser;
  page: Page;
  problems: PageProblems;
  /** Closes Chromium, then stops the studio. */
  close(): Promise<void>;
}

export async function openStudioSession(options: { env?: Record<string, string>; navigate?: boolean } = {}): Promise<StudioSession> {
  const [studio, browser] = await Promise.all([startStudio({ env: options.env }), launchChromium()]);
  const page = await browser.context.newPage();
  const problems = watchPage(page);
  if (options.navigate !== false) {
    await page.goto(studio.url);
    await page.locator('[data-test="host-state"][data-state="ready"]').waitFor({ timeout: 30_000 });
  }
  return {
    studio,
    browser,
    page,
    problems,
    async close() {
      await browser.close();
      await studio.stop();
    },
  };
}
