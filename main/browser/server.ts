import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { contentSecurityPolicy } from '../../shared/security.js';
import { serveGateway } from '../supervisor/gateway.js';
import { HostSupervisor, type SupervisorOptions } from '../supervisor/supervisor.js';
import { readStatic } from './static.js';
import { serverSocketTransport } from './ws-transport.js';

export interface BrowserServerOptions {
  /** 0 picks a free port. */
  port?: number;
  rendererDir: string;
  supervisor: SupervisorOptions;
  /** Fixed token (tests); default: 32 random bytes. */
  token?: string;
  log?: (line: string) => void;
}

export interface BrowserServer {
  url: string;
  origin: string;
  port: number;
  token: string;
  supervisor: HostSupervisor;
  close(): Promise<void>;
}

const COOKIE = 'argonaut_token';

/**
 * Browser mode: the studio's renderer over HTTP and the contract over a WebSocket, on 127.0.0.1
 * only. Every HTTP request and the WebSocket upgrade need the session token (query parameter on
 * the first visit, then an HttpOnly SameSite=Strict cookie); the upgrade also checks Origin so
 * other sites cannot drive the engine from a user's browser.
 */
export async function startBrowserServer(options: BrowserServerOptions): Promise<BrowserServer> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const supervisor = new HostSupervisor(options.supervisor);
  const supervisorReady = supervisor.start();
  let origin = '';

  const tokenOk = (candidate: string | undefined) => {
    if (!candidate) return false;
    const a = Buffer.from(candidate);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  const cookieToken = (req: IncomingMessage) =>
    (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim().split('='))
      .find(([k]) => k === COOKIE)?.[1];

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      const queryToken = url.searchParams.get('token') ?? undefined;
      const authorized = tokenOk(queryToken) || tokenOk(cookieToken(req));
      const headers: Record<string, string> = {
        'Content-Security-Policy': contentSecurityPolicy([origin.replace(/^http/, 'ws')]),
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-store',
      };
      if (!authorized) {
        res.writeHead(401, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('Argonaut Studio: this address needs the token printed by `argonaut --browser`.\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, headers);
        res.end();
        return;
      }
      if (tokenOk(queryToken)) headers['Set-Cookie'] = `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
      const file = await readStatic(options.rendererDir, url.pathname);
      if (!file) {
        res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('not found\n');
        return;
      }
      res.writeHead(200, { ...headers, 'Content-Type': file.type });
      res.end(req.method === 'HEAD' ? undefined : file.body);
    })().catch((error: unknown) => {
      options.log?.(`browser server: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 2 ** 20 });
  let sessions = 0;
  http.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', origin);
    const protocolToken = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .find((p) => p.startsWith('token.'))
      ?.slice('token.'.length);
    const authorized = tokenOk(protocolToken) || tokenOk(cookieToken(req));
    const originOk = req.headers.origin === undefined || req.headers.origin === origin;
    if (url.pathname !== '/rpc' || !authorized || !originOk) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const caller = `browser-${++sessions}`;
      serveGateway(serverSocketTransport(ws), supervisor, { caller, log: options.log });
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  await supervisorReady;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    supervisor,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections?.();
      await supervisor.stop();
    },
  };
}
