/**
 * A real `redis-server` (the Debian package; .ci/run installs it) per test file: a free port, a
 * temporary folder holding its append-only file (`--appendonly yes --appendfsync always`: every
 * write on disk before Redis answers, so a restart loses nothing), an optional `--requirepass`.
 * `restart()` stops it with SIGTERM and starts it again on the same folder and port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The redis-server executable on PATH, or undefined (tests then skip, saying why). */
export function redisServerPath(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const file = found.stdout.trim();
  return found.status === 0 && file ? file : undefined;
}

/** Why the Redis tests skip here, printed once; undefined when they run. */
export function redisSkipReason(): string | undefined {
  if (redisServerPath()) return undefined;
  const reason = 'redis-server is not installed here (apt-get install redis-server; .ci/run installs it): the queue tests skip';
  console.warn(reason);
  return reason;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  dir: string;
  /** redis://[:password@]127.0.0.1:port */
  url: string;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess, log: () => string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}):\n${log()}`);
    if (/Ready to accept connections/.test(log())) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not start on port ${port} within ${timeoutMs} ms:\n${log()}`);
}

export async function startRedis(options: { password?: string } = {}): Promise<RedisServer> {
  const executable = redisServerPath();
  if (!executable) throw new Error('redis-server is not installed');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'argonaut-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';
  const launch = async () => {
    log = '';
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no', ...(options.password ? ['--requirepass', options.password] : [])];
    child = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    await waitForPort(port, child, () => log);
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await launch();
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
  return {
    port,
    dir,
    url: `redis://${auth}127.0.0.1:${port}`,
    stop,
    async restart() {
      await stop();
      await launch();
    },
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
