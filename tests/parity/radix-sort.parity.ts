import { poisonBuffer, readBuffer, uploadStorage } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { RadixSort } from '../../main/engine/gpu/primitives/radix-sort.js';
import { rng } from '../helpers/random.js';
import type { ParityResult } from './types.js';

/** CPU reference: stable sort of (key, value) pairs by the low `bits` bits of the key. */
export function stableSortReference(keys: Uint32Array, vals: Uint32Array, bits: number): { keys: Uint32Array; vals: Uint32Array } {
  const mask = bits >= 32 ? 0xffffffff : (1 << bits) - 1;
  const order = [...keys.keys()].sort((a, b) => ((keys[a] & mask) >>> 0) - ((keys[b] & mask) >>> 0) || a - b);
  return { keys: Uint32Array.from(order, (i) => keys[i]), vals: Uint32Array.from(order, (i) => vals[i]) };
}

export interface SortCase {
  n: number;
  capacity: number;
  bits: number;
  /** Keys are drawn from this many distinct values (duplicates test stability). */
  distinct: number;
  workgroupSize?: number;
  itemsPerThread?: number;
}

export async function radixSortParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: SortCase): Promise<ParityResult> {
  const random = rng(seed);
  const mask = c.bits >= 32 ? 0xffffffff : (1 << c.bits) - 1;
  const palette = Uint32Array.from({ length: c.distinct }, () => (random() * 2 ** 32) >>> 0);
  const keys = new Uint32Array(c.capacity);
  const vals = new Uint32Array(c.capacity);
  for (let i = 0; i < c.capacity; i++) {
    // bits above `bits` are random too: the sort must ignore them
    keys[i] = ((palette[Math.floor(random() * c.distinct)] & mask) | ((random() * 2 ** 32) & ~mask)) >>> 0;
    vals[i] = i;
  }
  const { device } = ctx;
  const sort = await RadixSort.create(ctx, { variant, workgroupSize: c.workgroupSize, itemsPerThread: c.itemsPerThread });
  const keyBuf = uploadStorage(device, 'sort.test.keys', keys);
  const valBuf = uploadStorage(device, 'sort.test.vals', vals);
  const count = uploadStorage(device, 'sort.test.count', new Uint32Array([7, 7, c.n, 7]));
  const plan = await sort.createPlan(c.capacity, keyBuf, valBuf, { buffer: count, index: 2 }, c.bits);
  if (plan.resultKeys !== keyBuf) {
    poisonBuffer(device, plan.resultKeys, 0xdeadbeef);
    poisonBuffer(device, plan.resultVals, 0xdeadbeef);
  }
  const commands = ctx.commands('sort.test');
  sort.encode(commands, plan);
  await commands.submit();
  const gotKeys = new Uint32Array(await readBuffer(device, plan.resultKeys, c.capacity * 4));
  const gotVals = new Uint32Array(await readBuffer(device, plan.resultVals, c.capacity * 4));
  const want = stableSortReference(keys.subarray(0, c.n), vals.subarray(0, c.n), c.bits);
  let mismatches = 0;
  let first = -1;
  for (let i = 0; i < c.n; i++) {
    if (gotKeys[i] !== want.keys[i] || gotVals[i] !== want.vals[i]) {
      mismatches++;
      if (first < 0) first = i;
    }
  }
  plan.destroy();
  keyBuf.destroy();
  valBuf.destroy();
  count.destroy();
  return {
    name: `radix sort n=${c.n} cap=${c.capacity} bits=${c.bits} distinct=${c.distinct} wg=${c.workgroupSize ?? 256}x${c.itemsPerThread ?? 4}`,
    variant,
    seed,
    ok: mismatches === 0,
    error: mismatches,
    tolerance: 0,
    detail: mismatches ? `${mismatches} mismatches, first at ${first}: got (${gotKeys[first]}, ${gotVals[first]}), want (${want.keys[first]}, ${want.vals[first]})` : undefined,
  };
}

export const SORT_CASES: readonly SortCase[] = [
  { n: 1, capacity: 1, bits: 32, distinct: 1 },
  { n: 0, capacity: 100, bits: 32, distinct: 5 },
  { n: 1000, capacity: 1000, bits: 32, distinct: 1000 },
  { n: 1024, capacity: 1500, bits: 32, distinct: 3 },
  { n: 50_000, capacity: 60_000, bits: 13, distinct: 4056 },
  { n: 200_000, capacity: 200_000, bits: 32, distinct: 100_000 },
  { n: 100_000, capacity: 100_000, bits: 8, distinct: 7 },
  { n: 30_000, capacity: 30_000, bits: 5, distinct: 32 },
  { n: 70_001, capacity: 70_001, bits: 20, distinct: 50_000, itemsPerThread: 8 },
];
