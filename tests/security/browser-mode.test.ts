/**
 * Browser mode listens on 127.0.0.1 only and refuses every request without its session token
 * (HTTP pages and assets, any method, the WebSocket upgrade), and WebSocket upgrades from other
 * origins even with it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserServer, type BrowserServer } from '../../main/browser/server.js';
import { builtFile } from '../helpers/build.js';

let server: BrowserServer;

beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'argonaut-browser-sec-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>studio</title>');
  mkdirSync(path.join(root, 'assets'));
  writeFileSync(path.join(root, 'assets', 'app.js'), 'APP_CODE');
  server = await startBrowserServer({ rendererDir: root, supervisor: { hostScript: builtFile('host/index.mjs'), stdio: 'pipe' } });
});
afterAll(async () => {
  await server?.close();
});

function tryConnect(host: string, port: number): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

function upgrade(headers: Record<string, string>, protocols?: string[], pathname = '/rpc'): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}${pathname}`, protocols, { headers });
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => resolve(`HTTP ${res.statusCode}`));
    ws.once('error', (error) => resolve(error.message));
  });
}

describe('browser mode', () => {
  it('accepts connections on 127.0.0.1 only: not on other interfaces, not on IPv6 loopback', async () => {
    expect(await tryConnect('127.0.0.1', server.port)).toBe('connected');
    expect(await tryConnect('::1', server.port)).not.toBe('connected');
    const external = Object.values(os.networkInterfaces()).flat().filter((a) => a && !a.internal && a.family === 'IPv4');
    if (external.length === 0) console.warn('no non-loopback IPv4 interface here: only loopback checked');
    for (const address of external) expect(await tryConnect(address!.address, server.port), address!.address).not.toBe('connected');
  });

  it('refuses every page, asset and method without the token, revealing nothing', async () => {
    const attempts: [string, RequestInit?][] = [
      ['/'], ['/index.html'], ['/assets/app.js'], ['/rpc'], ['/?token='], [`/?token=${server.token.slice(0, -1)}`], [`/?token=${server.token.toUpperCase()}`],
      [`/?token=${server.token}x`], ['/', { headers: { cookie: `argonaut_token=${'0'.repeat(64)}` } }], ['/', { headers: { cookie: `other=${server.token}` } }],
      ['/', { method: 'POST' }], ['/', { method: 'HEAD' }], ['/', { method: 'PUT', body: 'x' }],
    ];
    for (const [p, init] of attempts) {
      const res = await fetch(`${server.origin}${p}`, init);
      expect(res.status, `${init?.method ?? 'GET'} ${p}`).toBe(401);
      const body = await res.text();
      expect(body).not.toContain('APP_CODE');
      expect(body).not.toContain('<title>studio</title>');
    }
  });

  it('with the token: GET and HEAD only', async () => {
    const cookie = `argonaut_token=${server.token}`;
    expect((await fetch(`${server.origin}/assets/app.js`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${server.origin}/`, { method: 'POST', headers: { cookie } })).status).toBe(405);
  });

  it('refuses WebSocket upgrades without the token, on other paths, or from other origins', async () => {
    const token = ['argonaut', `token.${server.token}`];
    expect(await upgrade({ origin: server.origin }, token)).toBe('open');
    expect(await upgrade({ origin: server.origin })).toBe('HTTP 401');
    expect(await upgrade({ origin: server.origin }, ['argonaut', `token.${'f'.repeat(64)}`])).toBe('HTTP 401');
    expect(await upgrade({ origin: server.origin }, ['argonaut', 'token.'])).toBe('HTTP 401');
    expect(await upgrade({ origin: server.origin }, token, '/other')).toBe('HTTP 401');
    expect(await upgrade({ origin: 'http://evil.example' }, token)).toBe('HTTP 401');
    expect(await upgrade({ origin: `http://localhost:${server.port}` }, token)).toBe('HTTP 401'); // another origin, same machine
    expect(await upgrade({ origin: 'null' }, token)).toBe('HTTP 401');
  });
});
