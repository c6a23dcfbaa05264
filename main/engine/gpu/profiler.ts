import type { ProfileReport, ProfileRow } from '../../../shared/contract/profile.js';

export type ProfilerMode = 'off' | 'timestamps' | 'host';

interface KernelStats {
  calls: number;
  totalNs: number;
}

/**
 * Per-kernel GPU times. With `timestamp-query` every profiled dispatch runs in its own compute
 * pass with begin/end timestamps, resolved and read back asynchronously (no stall in the
 * recording path). Without it (llvmpipe) each dispatch is submitted alone and timed on the host
 * around `onSubmittedWorkDone`: slow, but the same table. When off, nothing here runs.
 */
export class Profiler {
  private stats = new Map<string, KernelStats>();
  private readonly configs = new Map<string, string>();
  private pending: Promise<void>[] = [];
  private wallStartMs = performance.now();

  /** How the recorded rows were measured (the last non-off mode). */
  private source: 'timestamps' | 'host';

  constructor(
    private readonly device: GPUDevice,
    private modeValue: ProfilerMode,
  ) {
    this.source = modeValue === 'host' || !device.features?.has('timestamp-query') ? 'host' : 'timestamps';
  }

  get mode(): ProfilerMode {
    return this.modeValue;
  }

  /** Switches profiling on or off between submits (benchmarks time stages, then kernels). */
  setMode(mode: ProfilerMode): void {
    if (mode === 'timestamps' && !this.device.features.has('timestamp-query')) throw new Error('profiler: this device has no timestamp-query');
    this.modeValue = mode;
    if (mode !== 'off') this.source = mode;
  }

  get enabled(): boolean {
    return this.mode !== 'off';
  }

  reset(): void {
    this.stats.clear();
    this.wallStartMs = performance.now();
  }

  /** What a label's pipeline is (variant, constants, packing), for the report's last column. */
  describe(kernel: string, config: string): void {
    if (!this.configs.has(kernel)) this.configs.set(kernel, config);
  }

  record(kernel: string, durationNs: number): void {
    const entry = this.stats.get(kernel);
    if (entry) {
      entry.calls += 1;
      entry.totalNs += durationNs;
    } else this.stats.set(kernel, { calls: 1, totalNs: durationNs });
  }

  track(promise: Promise<void>): void {
    this.pending.push(promise);
  }

  /** Waits for every outstanding readback. */
  async flush(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      await Promise.all(batch);
    }
  }

  /** The table since the last reset, after all readbacks landed. */
  async report(): Promise<ProfileReport> {
    await this.flush();
    const wallMs = performance.now() - this.wallStartMs;
    let gpuNs = 0;
    for (const s of this.stats.values()) gpuNs += s.totalNs;
    const rows: ProfileRow[] = [...this.stats.entries()]
      .map(([kernel, s]) => ({
        kernel,
        calls: s.calls,
        totalMs: s.totalNs / 1e6,
        avgMs: s.totalNs / 1e6 / s.calls,
        percent: gpuNs > 0 ? (100 * s.totalNs) / gpuNs : 0,
        ...(this.configs.has(kernel) ? { config: this.configs.get(kernel) } : {}),
      }))
      .sort((a, b) => b.totalMs - a.totalMs);
    return { source: this.source, rows, gpuMs: gpuNs / 1e6, wallMs };
  }

  /** Query set + buffers for one submit's timestamps (timestamps mode). */
  createTimestampBatch(count: number): TimestampBatch {
    return new TimestampBatch(this.device, count);
  }
}

export class TimestampBatch {
  readonly querySet: GPUQuerySet;
  private readonly resolve: GPUBuffer;
  private readonly readback: GPUBuffer;

  constructor(
    private readonly device: GPUDevice,
    readonly capacity: number,
  ) {
    this.querySet = device.createQuerySet({ type: 'timestamp', count: capacity * 2 });
    this.resolve = device.createBuffer({ size: capacity * 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readback = device.createBuffer({ size: capacity * 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  encodeResolve(encoder: GPUCommandEncoder, used: number): void {
    encoder.resolveQuerySet(this.querySet, 0, used * 2, this.resolve, 0);
    encoder.copyBufferToBuffer(this.resolve, 0, this.readback, 0, used * 16);
  }

  /** After submit: reads the timestamps and hands each pass's duration to `sink`. */
  async collect(labels: readonly string[], sink: (label: string, ns: number) => void): Promise<void> {
    await this.readback.mapAsync(GPUMapMode.READ, 0, labels.length * 16);
    const stamps = new BigUint64Array(this.readback.getMappedRange(0, labels.length * 16).slice(0));
    this.readback.unmap();
    // A pass's begin timestamp can be written before the previous (dependent) pass has finished
    // (Vulkan writes it at the top of the pipe), which would count the previous kernel twice.
    // So each pass runs from the later of its begin and the previous pass's end to its end: the
    // rows then add up to the span of the submit, never more.
    let previousEnd = 0n;
    labels.forEach((label, i) => {
      const begin = stamps[2 * i] > previousEnd ? stamps[2 * i] : previousEnd;
      const end = stamps[2 * i + 1];
      sink(label, end > begin ? Number(end - begin) : 0);
      if (end > previousEnd) previousEnd = end;
    });
    this.querySet.destroy();
    this.resolve.destroy();
    this.readback.destroy();
  }
}
