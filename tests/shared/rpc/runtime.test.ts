import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineContract, method } from '../../../shared/rpc/define.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';

const testContract = defineContract({
  services: {
    math: {
      add: method(z.object({ a: z.number(), b: z.number() }).strict(), z.number(), 'adds'),
      fail: method(z.object({ file: z.string() }).strict(), z.never(), 'always fails'),
      crash: method(z.object({}).strict(), z.never(), 'throws a plain error'),
    },
  },
  events: { tick: z.object({ n: z.number() }) },
});

function setup() {
  const [clientSide, serverSide] = createMemoryTransportPair();
  const add = vi.fn(async ({ a, b }: { a: number; b: number }) => a + b);
  const impl = {
    math: {
      add,
      fail: async ({ file }: { file: string }) => {
        throw new ArgonautError('bad_input', `${file}: truncated`, { file });
      },
      crash: async () => {
        throw new TypeError('boom');
      },
    },
  };
  const internal = vi.fn();
  const server = serve(testContract, impl, serverSide, { caller: 'test', onInternalError: internal });
  const client = createClient(testContract, clientSide);
  return { client, server, add, internal, clientSide, serverSide };
}

describe('typed RPC runtime', () => {
  it('calls a service through the typed proxy', async () => {
    const { client } = setup();
    await expect(client.api.math.add({ a: 2, b: 3 })).resolves.toBe(5);
  });

  it('refuses an invalid argument with a typed error before the service runs', async () => {
    const { client, add } = setup();
    const raw = client.request('math', 'add', { a: 'two', b: 3 });
    await expect(raw).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(raw).rejects.toBeInstanceOf(ArgonautError);
    await expect(raw).rejects.toThrow(/math\.add: a:/);
    await expect(client.request('math', 'add', { a: 1, b: 2, extra: true })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(add).not.toHaveBeenCalled();
  });

  it('refuses unknown services and inherited property names', async () => {
    const { client } = setup();
    await expect(client.request('math', 'mul', {})).rejects.toMatchObject({ code: 'unknown_method' });
    await expect(client.request('math', 'constructor', {})).rejects.toMatchObject({ code: 'unknown_method' });
    await expect(client.request('__proto__', 'add', {})).rejects.toMatchObject({ code: 'unknown_method' });
  });

  it('rebuilds service errors from the envelope, code and details included', async () => {
    const { client } = setup();
    const error = await client.api.math.fail({ file: '/x/cameras.bin' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArgonautError);
    expect(error).toMatchObject({ code: 'bad_input', message: '/x/cameras.bin: truncated', details: { file: '/x/cameras.bin' } });
  });

  it('turns unexpected exceptions into internal errors and reports them', async () => {
    const { client, internal } = setup();
    await expect(client.api.math.crash({})).rejects.toMatchObject({ code: 'internal', message: 'boom' });
    expect(internal).toHaveBeenCalledOnce();
  });

  it('delivers events to subscribers until they unsubscribe', async () => {
    const { client, server } = setup();
    const seen: number[] = [];
    const off = client.on('tick', (p) => seen.push(p.n));
    server.emit('tick', { n: 1 });
    await new Promise((r) => setTimeout(r, 0));
    off();
    server.emit('tick', { n: 2 });
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual([1]);
  });

  it('rejects calls in flight when the connection closes', async () => {
    const [clientSide] = createMemoryTransportPair();
    const client = createClient(testContract, clientSide);
    const pending = client.api.math.add({ a: 1, b: 1 });
    clientSide.close();
    await expect(pending).rejects.toMatchObject({ code: 'host_crashed' });
    await expect(client.api.math.add({ a: 1, b: 1 })).rejects.toMatchObject({ code: 'host_crashed' });
  });
});
