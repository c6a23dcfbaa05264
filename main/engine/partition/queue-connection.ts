/**
 * The block queue's Redis connection (docs/scale.md, "Queue and workers"): a `redis://` or
 * `rediss://` (TLS) URL, with an optional user and password (Redis `requirepass` / ACL). Every
 * message names the URL with its password removed (redactQueueUrl), never the password.
 *
 * Before a coordinator or worker starts, `checkQueueReachable` asks Redis once (PING) with a short
 * timeout and no retries, so an unreachable server or a wrong password is refused by name within
 * seconds instead of ioredis retrying for ever. After that, connections retry (a Redis restart
 * is ridden out: persistence keeps the jobs, docs/scale.md).
 */
import type { RedisOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { redactQueueUrl } from '../../../shared/project/partition.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';

/** How long the first PING may take before the URL counts as unreachable. */
export const QUEUE_CONNECT_TIMEOUT_MS = 3000;

/** ioredis options for a queue URL; refuses anything but redis:// and rediss://. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ArgonautError('bad_input', `${redactQueueUrl(url)}: not a queue URL (expected redis://[user:password@]host:port[/db] or rediss://...)`, { queue: redactQueueUrl(url) });
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ArgonautError('bad_input', `${redactQueueUrl(url)}: the queue URL must start with redis:// or rediss:// (TLS), not ${parsed.protocol}//`, { queue: redactQueueUrl(url) });
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db && !/^\d+$/.test(db)) throw new ArgonautError('bad_input', `${redactQueueUrl(url)}: the path must be a database number (/0, /1, ...), not /${db}`, { queue: redactQueueUrl(url) });
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: { servername: parsed.hostname } } : {}),
    // BullMQ's workers block on Redis: commands wait for a reconnect instead of failing.
    maxRetriesPerRequest: null,
  };
}

/** Our error for what Redis or the socket said, naming the URL without its password. */
export function queueConnectionError(url: string, error: unknown): ArgonautError {
  const shown = redactQueueUrl(url);
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (/WRONGPASS|invalid username-password/i.test(message)) {
    return new ArgonautError('bad_input', `${shown}: Redis refused the password (WRONGPASS): check the user and password in the queue URL`, { queue: shown, redis: 'WRONGPASS' });
  }
  if (/NOAUTH/i.test(message)) {
    return new ArgonautError('bad_input', `${shown}: Redis needs a password (NOAUTH): give it in the URL, redis://:PASSWORD@host:port`, { queue: shown, redis: 'NOAUTH' });
  }
  if (/without any password configured/i.test(message)) {
    return new ArgonautError('bad_input', `${shown}: the URL gives a password but this Redis has none configured (requirepass)`, { queue: shown });
  }
  return new ArgonautError('bad_input', `${shown}: cannot reach Redis (${code ?? message}); is redis-server running there, and is the port open?`, { queue: shown, ...(code ? { errno: code } : {}) });
}

/**
 * One PING with no retries and a short timeout: resolves when Redis answers and accepts the
 * credentials, else throws our error (bad input: the CLI exits 3).
 */
export async function checkQueueReachable(url: string, timeoutMs = QUEUE_CONNECT_TIMEOUT_MS): Promise<void> {
  const client = new Redis({ ...redisOptionsFromUrl(url), lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // The socket's own error (ECONNREFUSED, ENOTFOUND) comes as an event; the awaited call then
  // only says the connection closed.
  let socketError: unknown;
  client.on('error', (error) => (socketError ??= error));
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
      }),
    ]);
    if (answer !== 'PONG') throw new Error(`unexpected answer to PING: ${answer}`);
  } catch (error) {
    throw queueConnectionError(url, socketError ?? error);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
