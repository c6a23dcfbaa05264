import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserServer, type BrowserServer } from '../../../main/browser/server.js';
import { resolveInside } from '../../../main/browser/static.js';
import { decodeMessage, encodeMessage } from '../../../shared/rpc/codec.js';
import { builtFile } from '../../helpers/build.js';

let server: BrowserServer;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'argonaut-renderer-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>t</title>');
  mkdirSync(path.join(root, 'assets'));
  writeFileSync(path.join(root, 'assets', 'a.js'), 'console.log(1)');
  writeFileSync(path.join(path.dirname(root), 'secret.txt'), 'secret');
  server = await startBrowserServer({ rendererDir: root, supervisor: { hostScript: builtFile('host/index.mjs'), stdio: 'pipe' } });
});
afterAll(async () => {
  await server?.close();
});

function connect(headers: Record<string, string>, protocols?: string[]): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/rpc`, protocols, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

function call(ws: WebSocket, service: string, method: string, args: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const id = Math.floor(Math.random() * 1e9);
    const onMessage = (data: WebSocket.RawData, isBinary: boolean) => {
      const m = decodeMessage(isBinary ? new Uint8Array(data as Buffer) : data.toString()) as Record<string, unknown>;
      if (m.kind === 'res' && m.id === id) {
        ws.off('message', onMessage);
        resolve(m);
      }
    };
    ws.on('message', onMessage);
    ws.send(encodeMessage({ kind: 'req', id, service, method, args }));
  });
}

describe('browser mode server', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(server.origin).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.url).toContain(`token=${server.token}`);
    expect(server.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses pages without the token and serves them with it, with a strict CSP and a session cookie', async () => {
    const denied = await fetch(`${server.origin}/`);
    expect(denied.status).toBe(401);
    const wrong = await fetch(`${server.origin}/?token=${'0'.repeat(64)}`);
    expect(wrong.status).toBe(401);
    const ok = await fetch(server.url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toMatch(/default-src 'self'; script-src 'self'/);
    expect(ok.headers.get('content-security-policy')).not.toMatch(/unsafe-eval/);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict/);
    const asset = await fetch(`${server.origin}/assets/a.js`, { headers: { cookie: cookie.split(';')[0] } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  it('never serves files outside the renderer folder', async () => {
    const cookie = `argonaut_token=${server.token}`;
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00']) {
      const res = await fetch(`${server.origin}${p}`, { headers: { cookie } });
      expect(res.status, p).toBe(404);
    }
    expect(resolveInside('/srv/app', '/../app-secret/x')).toBeUndefined();
    expect(resolveInside('/srv/app', '/a/../../etc/passwd')).toBeUndefined();
    expect(resolveInside('/srv/app', '/a/b.js')).toBe('/srv/app/a/b.js');
  });

  it('refuses WebSocket connections without the token or from another origin', async () => {
    await expect(connect({})).rejects.toThrow(/401/);
    await expect(connect({ cookie: `argonaut_token=${server.token}`, origin: 'http://evil.example' })).rejects.toThrow(/401/);
  });

  it('serves the contract over the WebSocket with the token, validating arguments', async () => {
    const ws = await connect({ origin: server.origin }, ['argonaut', `token.${server.token}`]);
    const pong = await call(ws, 'system', 'ping', {});
    expect(pong).toMatchObject({ ok: true, result: { pong: true } });
    const bad = await call(ws, 'system', 'ping', { x: 1 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    ws.close();
  });
});
