/**
 * The GPU memory ledger: every buffer the engine creates is counted here (the context routes
 * `device.createBuffer` through `record`, so arenas, `createStorage`, uniforms and staging buffers
 * alike), with the bytes alive now, the most so far, and a budget.
 *
 * Why a budget of our own: WebGPU (Dawn) has no free-memory query, and a driver that runs out
 * either refuses an allocation (an 'out-of-memory' error, asynchronously) or, worse, loses the
 * device. So the engine asks before it grows (`fits`, `wouldFit`), refuses any allocation that
 * would pass the budget (`GpuOutOfMemoryError`, thrown by createBuffer itself), and wraps growth
 * in `guard`: an 'out-of-memory' error scope, and the buffers made inside destroyed again when
 * the growth fails, so a refusal (ours or the driver's) leaves the ledger where it was.
 *
 * The budget: `--gpu-memory-budget` / ARGONAUT_GPU_MEMORY_BUDGET when given; otherwise, on a
 * software adapter (llvmpipe, whose buffers are host memory) half of the system's memory, and on a
 * hardware one no total of ours (Dawn cannot say how much the GPU holds; the driver's refusal is
 * caught at growth). Single buffers are always held to the device's maxBufferSize.
 */
import { totalmem } from 'node:os';
import { ArgonautError } from '../../../shared/rpc/errors.js';

/** Where a budget came from: the user, or our estimate for this kind of adapter. */
export type BudgetSource = 'configured' | 'system-memory' | 'none';

export interface MemoryBudget {
  /** Bytes of GPU buffers the engine may hold at once (Infinity: no total of ours). */
  totalBytes: number;
  source: BudgetSource;
}

/** What a refused allocation wanted, and what there was. */
export interface OutOfMemoryDetails {
  /** What was being allocated ('a buffer "splats" of ...', 'growing to 120000 splats'). */
  what: string;
  /** Bytes the refused allocation asked for (0 when the driver did not say). */
  requestedBytes: number;
  /** Bytes alive when it was refused. */
  liveBytes: number;
  budgetBytes: number;
  /** 'budget': ours (the ledger); 'driver': Dawn's out-of-memory error. */
  refusedBy: 'budget' | 'driver';
}

/** An allocation the budget or the driver refused. Nothing of it stays allocated. */
export class GpuOutOfMemoryError extends ArgonautError {
  constructor(readonly refusal: OutOfMemoryDetails) {
    super('unavailable', `out of GPU memory: ${refusal.what}${refusal.requestedBytes ? ` (${formatBytes(refusal.requestedBytes)})` : ''} with ${formatBytes(refusal.liveBytes)} allocated ${refusal.refusedBy === 'budget' ? `passes the GPU memory budget of ${formatBytes(refusal.budgetBytes)}` : 'was refused by the driver'}`, { ...refusal });
    this.name = 'GpuOutOfMemoryError';
  }
}

export function isGpuOutOfMemory(error: unknown): error is GpuOutOfMemoryError {
  return error instanceof GpuOutOfMemoryError;
}

/** "1.50 GiB", "12.0 MiB", "512 B": binary units, three significant digits. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'unlimited';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toPrecision(3)} ${units[unit]}`;
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, t: 1e12, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/**
 * A byte size as people write it: "24GB" (10^9), "24GiB" (2^30), "512MiB", "3e9" (bytes). Empty:
 * undefined (no budget given). Anything else is an invalid argument naming `source`.
 */
export function parseByteSize(text: string, source = '--gpu-memory-budget'): number | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const match = /^(\d+(?:\.\d+)?(?:e\d+)?)\s*([a-z]*)$/i.exec(trimmed);
  const scale = match ? UNITS[match[2].toLowerCase()] : undefined;
  const bytes = match && scale !== undefined ? Math.floor(Number(match[1]) * scale) : NaN;
  if (!Number.isFinite(bytes) || bytes <= 0) throw new ArgonautError('invalid_argument', `${source}: expected a size such as 24GB, 24GiB, 512MiB or a number of bytes, got "${text}"`);
  return bytes;
}

/** The budget for an adapter when none is configured (see the file's header). */
export function estimatedBudget(software: boolean, systemBytes = totalmem()): MemoryBudget {
  return software ? { totalBytes: Math.floor(systemBytes / 2), source: 'system-memory' } : { totalBytes: Infinity, source: 'none' };
}

export class GpuMemory {
  private liveBytes = 0;
  private peakBytes = 0;
  private budgetValue: MemoryBudget;
  /** Buffers made inside each open `guard` (innermost last), to destroy when it fails. */
  private readonly openGuards: Set<GPUBuffer>[] = [];
  /** Test hook: allocations (whose label matches) left before the next one is refused as the driver would. */
  private driverRefusalIn: number | undefined;
  private driverRefusalOf: RegExp | undefined;

  constructor(
    budget: MemoryBudget,
    /** The device's largest single buffer (maxBufferSize). */
    readonly maxBufferBytes: number,
  ) {
    this.budgetValue = budget;
  }

  get live(): number {
    return this.liveBytes;
  }

  get peak(): number {
    return this.peakBytes;
  }

  get budget(): MemoryBudget {
    return this.budgetValue;
  }

  /** Bytes that can still be allocated under the budget. */
  get available(): number {
    return Math.max(0, this.budgetValue.totalBytes - this.liveBytes);
  }

  /** Replaces the budget (tests force a small one on their shared context; restore it after). */
  setBudget(budget: MemoryBudget): void {
    this.budgetValue = budget;
  }

  /** Starts the peak over at what is alive now (a job's peak is its own). */
  resetPeak(): void {
    this.peakBytes = this.liveBytes;
  }

  /** Whether `bytes` more fit under the budget now. */
  fits(bytes: number): boolean {
    return this.liveBytes + bytes <= this.budgetValue.totalBytes;
  }

  /**
   * Test hook: the allocation after the next `after` ones is refused as if the driver had run out
   * (a GpuOutOfMemoryError with refusedBy 'driver'); only allocations whose label matches
   * `labels` count when it is given; `undefined` turns it off.
   */
  refuseAsDriver(after: number | undefined, labels?: RegExp): void {
    this.driverRefusalIn = after;
    this.driverRefusalOf = labels;
  }

  /**
   * Counts a buffer about to be created, or throws GpuOutOfMemoryError without creating it when
   * it would pass the budget or the device's single-buffer limit. `create` makes the buffer;
   * its `destroy` is wrapped to give the bytes back once.
   */
  record(descriptor: GPUBufferDescriptor, create: (descriptor: GPUBufferDescriptor) => GPUBuffer): GPUBuffer {
    const size = descriptor.size;
    const what = `a buffer "${descriptor.label ?? ''}"`;
    if (this.driverRefusalIn !== undefined && (!this.driverRefusalOf || this.driverRefusalOf.test(descriptor.label ?? '')) && this.driverRefusalIn-- <= 0) {
      this.driverRefusalIn = undefined;
      throw new GpuOutOfMemoryError({ what, requestedBytes: size, liveBytes: this.liveBytes, budgetBytes: this.budgetValue.totalBytes, refusedBy: 'driver' });
    }
    if (size > this.maxBufferBytes) throw new GpuOutOfMemoryError({ what: `${what} over the device's maxBufferSize (${formatBytes(this.maxBufferBytes)})`, requestedBytes: size, liveBytes: this.liveBytes, budgetBytes: this.budgetValue.totalBytes, refusedBy: 'budget' });
    if (!this.fits(size)) throw new GpuOutOfMemoryError({ what, requestedBytes: size, liveBytes: this.liveBytes, budgetBytes: this.budgetValue.totalBytes, refusedBy: 'budget' });
    const buffer = create(descriptor);
    this.liveBytes += size;
    this.peakBytes = Math.max(this.peakBytes, this.liveBytes);
    const guard = this.openGuards.at(-1);
    guard?.add(buffer);
    const destroy = buffer.destroy.bind(buffer);
    let alive = true;
    buffer.destroy = () => {
      if (alive) {
        alive = false;
        this.liveBytes -= size;
        for (const open of this.openGuards) open.delete(buffer);
      }
      destroy();
    };
    return buffer;
  }

  /**
   * Runs a growth (`what` names it in the error): inside an 'out-of-memory' error scope, so a
   * driver's refusal becomes a GpuOutOfMemoryError; when it fails in any way, every buffer it
   * made that is still alive is destroyed before the error goes on. Guards nest.
   */
  async guard<T>(device: GPUDevice, what: string, grow: () => Promise<T>): Promise<T> {
    const made = new Set<GPUBuffer>();
    this.openGuards.push(made);
    const scoped = typeof device.pushErrorScope === 'function';
    if (scoped) device.pushErrorScope('out-of-memory');
    let result: T | undefined;
    let failure: unknown;
    try {
      result = await grow();
    } catch (error) {
      failure = error;
    }
    const driverError = scoped ? await device.popErrorScope() : null;
    this.openGuards.splice(this.openGuards.indexOf(made), 1);
    if (failure === undefined && driverError) {
      failure = new GpuOutOfMemoryError({ what: `${what}: ${driverError.message.split('\n')[0]}`, requestedBytes: 0, liveBytes: this.liveBytes, budgetBytes: this.budgetValue.totalBytes, refusedBy: 'driver' });
    }
    if (failure !== undefined) {
      for (const buffer of made) buffer.destroy();
      throw failure;
    }
    return result as T;
  }
}
