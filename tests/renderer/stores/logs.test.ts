import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { isReactive } from 'vue';
import { LOG_CAPACITY, useLogStore } from '../../../renderer/src/stores/logs.js';
import { fakeEngine, settle } from '../helpers/engine.js';

beforeEach(() => setActivePinia(createPinia()));

const line = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => ({ level, message, source: 'test', timeMs: 0 });

describe('log store', () => {
  it('keeps entries in order with increasing ids, filtered by the lowest level shown', () => {
    const logs = useLogStore();
    logs.add(line('debug', 'd'));
    logs.add(line('info', 'i'));
    logs.add(line('warn', 'w'));
    logs.add(line('error', 'e'));
    expect(logs.entries.map((e) => e.message)).toEqual(['d', 'i', 'w', 'e']);
    expect(logs.entries.map((e) => e.id)).toEqual([1, 2, 3, 4]);
    expect(logs.visible.map((e) => e.message)).toEqual(['i', 'w', 'e']);
    logs.minLevel = 'warn';
    expect(logs.visible.map((e) => e.message)).toEqual(['w', 'e']);
    logs.minLevel = 'debug';
    expect(logs.visible).toHaveLength(4);
  });

  it('drops the oldest entries beyond its capacity and counts them', () => {
    const logs = useLogStore();
    for (let i = 0; i < LOG_CAPACITY + 5; i++) logs.add(line('info', `m${i}`));
    expect(logs.entries).toHaveLength(LOG_CAPACITY);
    expect(logs.entries[0].message).toBe('m5');
    expect(logs.dropped).toBe(5);
    // Thousands of lines stay plain objects: no deep proxies.
    expect(isReactive(logs.entries)).toBe(false);
  });

  it('counts unseen warnings and errors until the console is looked at', () => {
    const logs = useLogStore();
    logs.add(line('warn', 'w'));
    logs.add(line('error', 'e'));
    logs.add(line('error', 'e2'));
    expect([logs.unseenWarnings, logs.unseenErrors]).toEqual([1, 2]);
    logs.markSeen();
    expect([logs.unseenWarnings, logs.unseenErrors]).toEqual([0, 0]);
  });

  it('follows the engine log event and notes host state changes itself', async () => {
    const engine = fakeEngine();
    const logs = useLogStore();
    logs.attach(engine.client);
    engine.server.emit('log', { level: 'info', message: 'GPU: Test GPU 9000', source: 'gpu', timeMs: 1 });
    engine.server.emit('host', { state: 'crashed', restarts: 2, reason: 'exit code 1' });
    await settle();
    expect(logs.entries.map((e) => [e.level, e.source, e.message])).toEqual([
      ['info', 'gpu', 'GPU: Test GPU 9000'],
      ['error', 'studio', 'engine host crashed: exit code 1 (2 restarts)'],
    ]);
  });
});
