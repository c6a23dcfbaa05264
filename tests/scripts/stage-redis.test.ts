/**
 * scripts/stage-redis.sh (gpu-prepare.sh's set `queue`): redis-server and the libraries a bare
 * image may lack, copied with a wrapper; a copy of the folder elsewhere starts from a bare
 * environment (no LD_LIBRARY_PATH of ours, a minimal PATH), maps its libraries from the copy,
 * and answers PING.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanedTempDirs } from '../helpers/datasets.js';
import { freePort, redisSkipReason } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

const temp = cleanedTempDirs(afterAll);

describe.skipIf(redisSkipReason())('stage-redis.sh', () => {
  it('copies redis-server and its libraries but the C runtime; a copy of the folder runs with LD_LIBRARY_PATH only, its libraries its own', async () => {
    const dir = path.join(await temp('stage-redis'), 'redis');
    const staged = spawnSync('bash', ['scripts/stage-redis.sh', dir], { encoding: 'utf8' });
    expect(staged.status, staged.stderr).toBe(0);
    const libs = await readdir(path.join(dir, 'lib'));
    expect(libs.length).toBeGreaterThan(0);
    expect(libs.filter((l) => /^(libc|libm|libpthread|libdl|librt|ld-linux)[.-]/.test(l))).toEqual([]);
    // every library ldd names outside the C runtime is there
    const needed = spawnSync('ldd', [path.join(dir, 'redis-server.bin')], { encoding: 'utf8' }).stdout.split('\n').map((l) => /^\s*(\S+) => \//.exec(l)?.[1]).filter((n): n is string => Boolean(n) && !/^(libc|libm|libpthread|libdl|librt)\.so/.test(n!));
    expect(needed.length).toBeGreaterThan(0);
    expect(needed.filter((n) => !libs.includes(n))).toEqual([]);

    const copy = path.join(await temp('stage-redis-copy'), 'elsewhere');
    await cp(dir, copy, { recursive: true });
    const port = await freePort();
    const server = spawn(path.join(copy, 'redis-server'), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', copy], { env: { PATH: '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    server.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    try {
      await waitFor(() => (/Ready to accept connections/.test(log) ? true : undefined), { timeoutMs: 10_000, what: 'the copied redis-server ready', lastSeen: () => log });
      const maps = await readFile(`/proc/${server.pid}/maps`, 'utf8');
      const mapped = new Set(maps.split('\n').map((l) => l.split(/\s+/)[5]).filter((f): f is string => Boolean(f) && /\.so/.test(f!)));
      for (const lib of libs) expect([...mapped].some((f) => f === path.join(copy, 'lib', lib)), `${lib} mapped from the copy`).toBe(true);
      const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, lazyConnect: true });
      try {
        await client.connect();
        expect(await client.ping()).toBe('PONG');
      } finally {
        client.disconnect();
      }
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => (server.exitCode !== null ? resolve(undefined) : server.once('exit', resolve)));
    }
  }, 60_000);
});
