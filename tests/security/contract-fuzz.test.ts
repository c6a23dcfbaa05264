/**
 * Every contract call is validated before it reaches the engine: random and near-valid arguments
 * for every method go through the gateway (what the renderer talks to) into a host-side server;
 * nothing unvalidated reaches an implementation, every request gets exactly one answer, nothing
 * crashes. A method added to the contract without an example here fails the first test.
 */
import { describe, expect, it } from 'vitest';
import { contract } from '../../shared/contract/index.js';
import type { RpcMessage } from '../../shared/rpc/messages.js';
import { createClient, lookupMethod, serve } from '../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../shared/rpc/transport.js';
import { serveGateway } from '../../main/supervisor/gateway.js';
import { freshSeed, rng } from '../helpers/random.js';

const VALID_KEY = (time: number) => ({ time, position: [time, 0, -3], rotation: [0, 0, 0, 1], fovYDeg: 50 });
const VALID_PATH = { id: 'orbit', name: 'Orbit', interpolation: 'smooth', loop: true, duration: 4, keyframes: [VALID_KEY(0), VALID_KEY(1), VALID_KEY(2)] };

/** One valid argument object per method. */
const VALID: Record<string, Record<string, unknown>> = {
  'system.ping': {},
  'system.info': {},
  'system.version': {},
  'projects.create': { source: { kind: 'dataset', dir: '/data/statue' }, name: 'statue', dir: '/projects', copy: false },
  'projects.open': { path: '/projects/statue.argo' },
  'projects.recent': {},
  'projects.scene': { project: '/projects/statue.argo' },
  'projects.image': { project: '/projects/statue.argo', camera: 3, maxSize: 512 },
  'train.start': { source: { kind: 'project', path: '/projects/statue.argo' }, params: { 'train.iterations': 7000, 'system.backend': 'auto' }, newRun: true },
  'train.partitioned': { project: '/projects/city.argo', partition: 'partition-001', queue: 'redis://:sesame@queue-host:6379', mergeFineTune: 100, params: { 'train.iterations': 7000 } },
  'train.pause': { job: 'job-1' },
  'train.resume': { job: 'job-1' },
  'train.stop': { job: 'job-1' },
  'train.status': {},
  'export.splats': { project: '/projects/statue.argo', format: 'spz', path: '/tmp/statue.spz' },
  'export.web': { project: '/projects/statue.argo', path: '/tmp/statue-web' },
  'projects.splats': { project: '/projects/statue.argo', raw: false },
  'projects.partition': { project: '/projects/statue.argo', blocks: 4, method: 'kd', overlap: 0.2 },
  'projects.partitions': { project: '/projects/statue.argo' },
  'projects.blockSplats': { project: '/projects/statue.argo' },
  'settings.get': {},
  'settings.apply': { params: { 'system.backend': 'auto' } },
  'dialog.open': { purpose: 'video', defaultPath: '/data' },
  'dialog.save': { format: 'glb', defaultPath: '/tmp/statue.glb' },
  'capture.import': { inputs: ['/data/walk.mp4', '/data/photos'], name: 'walk', dir: '/projects', params: { 'capture.frames': 40, 'train.iterations': 7000 } },
  'mesh.extract': { project: '/projects/statue.argo', path: '/tmp/statue.glb', params: { 'mesh.resolution': 128, 'mesh.depth': 'median' } },
  'mesh.preview': { task: 'mesh-1' },
  'paths.list': { project: '/projects/statue.argo' },
  'paths.save': { project: '/projects/statue.argo', path: VALID_PATH },
  'paths.delete': { project: '/projects/statue.argo', id: 'orbit' },
  'paths.render': { project: '/projects/statue.argo', path: VALID_PATH, out: '/tmp/orbit.mp4', settings: { width: 640, height: 360, fps: 30 } },
  'edits.get': { project: '/projects/statue.argo' },
  'edits.apply': { project: '/projects/statue.argo', operation: { op: 'delete', label: 'Delete 3 splats (box)' }, selection: Uint32Array.of(1, 5, 9) },
  'edits.undo': { project: '/projects/statue.argo' },
  'edits.redo': { project: '/projects/statue.argo' },
  'edits.clear': { project: '/projects/statue.argo' },
  'edits.select': { project: '/projects/statue.argo', mode: 'add', shape: { kind: 'brush', circles: [{ centre: [10, 20], radius: 8 }] }, camera: { width: 64, height: 48, fx: 50, fy: 50, cx: 32, cy: 24, worldToCamera: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 0, 0, 0, 1] }, current: new Uint32Array(4) },
  'edits.cleanPreview': { project: '/projects/statue.argo', params: { 'edit.cleanStrength': 0.4 } },
  'tasks.cancel': { task: 'capture-1' },
  'tasks.status': {},
};

const methods = Object.entries(contract.services).flatMap(([service, defs]) => Object.keys(defs).map((method) => `${service}.${method}`));

function randomValue(random: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  switch (Math.floor(random() * (depth > 3 ? 6 : 10))) {
    case 0:
      return pick([0, -0, 1, -1, 0.5, 1e308, -1e308, Number.NaN, Infinity, -Infinity, 2 ** 53, 2 ** 31, 4096, 16384, 1_000_001]);
    case 1:
      return pick(['', 'a', '../../etc/passwd', '/etc/passwd', 'C:\\Windows\\x.argo', 'x.argo', '\u0000', '\u202e.argo', 'é'.repeat(5000), 'a'.repeat(5000), '__proto__', 'constructor', 'sample', 'ply', 'spz', 'project', 'dataset', 'train.iterations']);
    case 2:
      return pick([true, false, null, undefined]);
    case 3:
      return pick([new Float32Array(3), new Uint8Array(2), new ArrayBuffer(8), new Date(0), () => 1, Symbol('s'), 10n]);
    case 4: {
      const cyclic: Record<string, unknown> = { kind: 'sample' };
      cyclic.self = cyclic;
      return cyclic;
    }
    case 5:
      return pick([{}, [], Object.create(null)]);
    case 6:
    case 7:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const keys = ['kind', 'path', 'dir', 'project', 'job', 'format', 'source', 'params', 'camera', 'maxSize', 'name', '__proto__', 'constructor', 'prototype', 'x'];
      for (let i = Math.floor(random() * 4); i > 0; i--) {
        const key = pick(keys);
        if (key === '__proto__') Object.defineProperty(o, key, { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
        else o[key] = randomValue(random, depth + 1);
      }
      return o;
    }
  }
}

/** A near-valid argument object: one field replaced, removed or added. */
function nearValid(valid: Record<string, unknown>, random: () => number): unknown {
  const copy: Record<string, unknown> = structuredClone(valid);
  const keys = Object.keys(copy);
  const r = random();
  if (keys.length && r < 0.4) copy[keys[Math.floor(random() * keys.length)]] = randomValue(random);
  else if (keys.length && r < 0.6) delete copy[keys[Math.floor(random() * keys.length)]];
  else if (r < 0.8) copy[['extra', '__proto__', 'constructor', 'kind', 'x'][Math.floor(random() * 5)]] = randomValue(random);
  else {
    const nested = keys.find((k) => copy[k] && typeof copy[k] === 'object');
    if (nested) (copy[nested] as Record<string, unknown>)[String(Math.floor(random() * 3))] = randomValue(random);
  }
  return copy;
}

function harness() {
  const reached: { method: string; args: unknown }[] = [];
  // Host side: a real `serve` whose implementation records what reaches it.
  const impl: Record<string, Record<string, (args: unknown) => Promise<unknown>>> = {};
  for (const [service, defs] of Object.entries(contract.services)) {
    impl[service] = {};
    for (const method of Object.keys(defs)) impl[service][method] = async (args) => (reached.push({ method: `${service}.${method}`, args }), {});
  }
  const [hostSide, gatewaySide] = createMemoryTransportPair();
  serve(contract, impl as never, hostSide, { caller: 'host' });
  const upstream = createClient(contract, gatewaySide);
  const forwarded: { method: string; args: unknown }[] = [];
  const link = {
    restartCount: 0,
    onEvent: () => () => undefined,
    onState: () => () => undefined,
    request: (service: string, method: string, args: unknown) => (forwarded.push({ method: `${service}.${method}`, args }), upstream.request(service, method, args)),
  };
  const [renderer, gatewayTransport] = createMemoryTransportPair();
  serveGateway(gatewayTransport, link, { caller: 'fuzz' });
  const answers = new Map<number, RpcMessage[]>();
  renderer.onMessage((m) => {
    if (m.kind === 'res') answers.set(m.id, [...(answers.get(m.id) ?? []), m]);
  });
  return { renderer, answers, forwarded, reached };
}

describe('the contract validates every call (fuzzed through the gateway)', () => {
  it('has a valid example for every method, and the examples pass', async () => {
    expect(Object.keys(VALID).sort()).toEqual([...methods].sort());
    const h = harness();
    methods.forEach((name, i) => {
      const [service, method] = name.split('.');
      h.renderer.send({ kind: 'req', id: i + 1, service, method, args: VALID[name] });
    });
    await expect.poll(() => h.answers.size).toBe(methods.length);
    expect(h.reached.map((r) => r.method).sort()).toEqual([...methods].sort());
  });

  it('random and near-valid arguments never reach an implementation unvalidated, and each gets one answer', async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const h = harness();
    let id = 0;
    const start = performance.now();
    // 4,000 calls, or as many as 5 s allow past the first 2,000: the counts below need a few
    // thousand, whatever the machine's load
    while (id < 4000 && (id < 2000 || performance.now() - start < 5000)) {
      const name = methods[Math.floor(random() * methods.length)];
      const [service, method] = name.split('.');
      const args = random() < 0.5 ? nearValid(VALID[name], random) : randomValue(random);
      h.renderer.send({ kind: 'req', id: ++id, service, method, args });
    }
    // A few calls to things that do not exist.
    for (const [service, method] of [['system', 'exec'], ['__proto__', 'toString'], ['projects', 'constructor'], ['train', 'hasOwnProperty']]) h.renderer.send({ kind: 'req', id: ++id, service, method, args: {} });
    await expect.poll(() => h.answers.size, { timeout: 20_000 }).toBe(id);
    for (const [reqId, answers] of h.answers) {
      expect(answers, `seed ${seed}, request ${reqId}`).toHaveLength(1);
      const a = answers[0] as { ok: boolean; error?: { code: string } };
      if (!a.ok) expect(['invalid_argument', 'unknown_method'], `seed ${seed}`).toContain(a.error!.code);
    }
    // Everything forwarded, and everything that reached the host's implementation, is exactly what the schema accepts.
    for (const { method, args } of [...h.forwarded, ...h.reached]) {
      const [service, name] = method.split('.');
      const parsed = lookupMethod(contract, service, name)!.args.safeParse(args);
      expect(parsed.success, `seed ${seed}: ${method}`).toBe(true);
      expect(parsed.data).toEqual(args);
      expect(Object.getPrototypeOf(args)).toBe(Object.prototype); // no prototype smuggled through
      expect((args as { polluted?: unknown }).polluted).toBeUndefined();
    }
    expect(h.reached.length).toBe(h.forwarded.length);
    expect(h.forwarded.length, `seed ${seed}: some near-valid calls pass`).toBeGreaterThan(50);
    expect(h.forwarded.length, `seed ${seed}: most random calls are refused`).toBeLessThan(id / 2);
    expect(h.forwarded.every((f) => methods.includes(f.method))).toBe(true);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  }, 60_000);

  it('refuses non-request messages and malformed requests without crashing', async () => {
    const h = harness();
    for (const junk of [null, 1, 'req', { kind: 'res', id: 1, ok: true }, { kind: 'evt', name: 'log', payload: {} }, { kind: 'req' }, { kind: 'req', id: 'x', service: 'system', method: 'ping' }]) {
      h.renderer.send(junk as never);
    }
    h.renderer.send({ kind: 'req', id: 99, service: 'system', method: 'ping', args: {} });
    await expect.poll(() => h.answers.has(99)).toBe(true);
    expect(h.forwarded.map((f) => f.method)).toEqual(['system.ping']);
  });
});
