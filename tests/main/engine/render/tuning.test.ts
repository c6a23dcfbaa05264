import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backwardDefaults } from '../../../../main/engine/render/backward-fit.js';
import { adapterKey, GATHER_ITEMS, gatherItems, loadTuning, saveTuning } from '../../../../main/engine/render/tuning.js';
import type { GpuInfo } from '../../../../shared/contract/gpu.js';

const info: GpuInfo = {
  backend: 'vulkan',
  featureLevel: 'core',
  adapter: { name: 'test-gpu', vendor: 'test', architecture: '', description: 'driver 1', software: false },
  features: ['subgroups'],
  limits: {},
  subgroupMinSize: 32,
  subgroupMaxSize: 32,
  variant: 'subgroup',
  variantForced: false,
};

describe('raster tuning cache', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'argonaut-tuning-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('round-trips a configuration per adapter, pixels per thread included', async () => {
    const file = path.join(dir, 'a.json');
    await saveTuning(info, { workgroupSize: 256, backwardReduce: 'partials', backwardBatch: 24, backwardPixels: 2 }, file);
    expect(await loadTuning(info, file)).toEqual({ workgroupSize: 256, backwardReduce: 'partials', backwardBatch: 24, backwardPixels: 2 });
    expect(await loadTuning({ ...info, adapter: { ...info.adapter, description: 'driver 2' } }, file)).toBeUndefined();
  });

  it('ignores entries it cannot trust', async () => {
    const file = path.join(dir, 'b.json');
    for (const bad of [{ backwardPixels: 3 }, { backwardBatch: 4 }, { backwardReduce: 'atomics' }, { workgroupSize: 100 }]) {
      await writeFile(file, JSON.stringify({ [adapterKey(info)]: bad }));
      expect(await loadTuning(info, file), JSON.stringify(bad)).toBeUndefined();
    }
    await writeFile(file, '{ not json');
    expect(await loadTuning(info, file)).toBeUndefined();
  });
});

describe('backward defaults', () => {
  it('subgroup partials: 2 pixels per thread in batches of 24 (the H200 sweep); 1 pixel: 16', () => {
    expect(backwardDefaults('subgroup', {})).toEqual({ backwardReduce: 'partials', backwardPixels: 2, backwardBatch: 24 });
    expect(backwardDefaults('subgroup', { backwardPixels: 1 })).toEqual({ backwardReduce: 'partials', backwardPixels: 1, backwardBatch: 16 });
    expect(backwardDefaults('subgroup', { backwardReduce: 'cas' })).toEqual({ backwardReduce: 'cas', backwardPixels: 1, backwardBatch: 64 });
    expect(backwardDefaults('portable', {})).toEqual({ backwardReduce: 'partials', backwardPixels: 1, backwardBatch: 64 });
    expect(backwardDefaults('subgroup', { backwardBatch: 8 }).backwardBatch).toBe(8);
  });
});

describe('records per gather thread', () => {
  it('is GATHER_ITEMS unless ARGONAUT_GATHER_ITEMS names another, and refuses a bad value by name', () => {
    expect(gatherItems({})).toBe(GATHER_ITEMS);
    expect(gatherItems({ ARGONAUT_GATHER_ITEMS: '4' })).toBe(4);
    for (const bad of ['0', '65', '2.5', 'eight']) expect(() => gatherItems({ ARGONAUT_GATHER_ITEMS: bad })).toThrow(/ARGONAUT_GATHER_ITEMS: expected an integer from 1 to 64/);
  });
});
