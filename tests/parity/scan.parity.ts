import { poisonBuffer, readBuffer, uploadStorage, createStorage } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { ExclusiveScan } from '../../main/engine/gpu/primitives/scan.js';
import { rng } from '../helpers/random.js';
import type { ParityResult } from './types.js';

/** CPU reference: exclusive prefix sum mod 2^32, with the total appended. */
export function exclusiveScanReference(values: Uint32Array, n = values.length): Uint32Array {
  const out = new Uint32Array(n + 1);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    out[i] = sum;
    sum = (sum + values[i]) >>> 0;
  }
  out[n] = sum;
  return out;
}

export interface ScanCase {
  n: number;
  /** Capacity of the plan (>= n): exercises GPU-driven counts smaller than the buffers. */
  capacity: number;
  maxValue: number;
  workgroupSize?: number;
  itemsPerThread?: number;
}

/** Runs one scan on the GPU with fresh random input, poisoned output, and compares exactly. */
export async function scanParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: ScanCase): Promise<ParityResult> {
  const random = rng(seed);
  let mismatchTotal: string | undefined;
  const values = new Uint32Array(c.capacity);
  for (let i = 0; i < c.capacity; i++) values[i] = Math.floor(random() * (c.maxValue + 1)) >>> 0;
  const { device } = ctx;
  const scan = await ExclusiveScan.create(ctx, { variant, workgroupSize: c.workgroupSize, itemsPerThread: c.itemsPerThread });
  const input = uploadStorage(device, 'scan.test.input', values);
  const output = createStorage(device, 'scan.test.output', (c.capacity + 1) * 4);
  const count = uploadStorage(device, 'scan.test.count', new Uint32Array([0xdead, c.n, 0, 0]));
  poisonBuffer(device, output, 0xfeedface);
  const plan = scan.createPlan(c.capacity, input, output, { buffer: count, index: 1 }, 3);
  const commands = ctx.commands('scan.test');
  scan.encode(commands, plan);
  await commands.submit();
  const got = new Uint32Array(await readBuffer(device, output, (c.capacity + 1) * 4));
  const counts = new Uint32Array(await readBuffer(device, count, 16));
  const want = exclusiveScanReference(values, c.n);
  if (counts[3] !== want[c.n]) mismatchTotal = `total written to the count buffer: got ${counts[3]}, want ${want[c.n]}`;
  let mismatches = 0;
  let first = -1;
  for (let i = 0; i <= c.n; i++) {
    if (got[i] !== want[i]) {
      mismatches++;
      if (first < 0) first = i;
    }
  }
  // Words past n+1 must keep the poison: the scan may not write beyond its count.
  let overwritten = 0;
  for (let i = c.n + 1; i <= c.capacity; i++) if (got[i] !== 0xfeedface) overwritten++;
  plan.destroy();
  input.destroy();
  output.destroy();
  count.destroy();
  const name = `scan n=${c.n} cap=${c.capacity} wg=${c.workgroupSize ?? 256}x${c.itemsPerThread ?? 4}`;
  return {
    name,
    variant,
    seed,
    ok: mismatches === 0 && overwritten === 0 && !mismatchTotal,
    error: mismatches + overwritten + (mismatchTotal ? 1 : 0),
    tolerance: 0,
    detail: mismatches ? `first mismatch at ${first}: got ${got[first]}, want ${want[first]}` : overwritten ? `${overwritten} words written past n` : mismatchTotal,
  };
}

export const SCAN_CASES: readonly ScanCase[] = [
  { n: 1, capacity: 1, maxValue: 100 },
  { n: 0, capacity: 10, maxValue: 100 },
  { n: 1023, capacity: 1023, maxValue: 1000 },
  { n: 1024, capacity: 1024, maxValue: 1000 },
  { n: 1025, capacity: 5000, maxValue: 1000 },
  { n: 300_000, capacity: 300_000, maxValue: 16 },
  { n: 1_234_567, capacity: 1_500_000, maxValue: 3 },
  { n: 100_000, capacity: 100_000, maxValue: 0xffffffff }, // wraps mod 2^32
  { n: 77_777, capacity: 77_777, maxValue: 7, workgroupSize: 64, itemsPerThread: 8 },
  { n: 50_000, capacity: 50_000, maxValue: 7, workgroupSize: 128, itemsPerThread: 1 },
];
