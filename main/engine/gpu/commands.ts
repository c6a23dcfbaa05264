import { rangeOf, type GpuRange } from './buffers.js';
import type { CompiledPipeline } from './kernels.js';
import type { Profiler, TimestampBatch } from './profiler.js';

type Dispatch =
  | { kind: 'direct'; x: number; y: number; z: number }
  | { kind: 'indirect'; buffer: GPUBuffer; offset: number };

/**
 * Records GPU work for one submit. With profiling off, consecutive dispatches share one compute
 * pass (no cost). With profiling on, every dispatch gets its own pass: timestamped, or (without
 * timestamp-query) its own command buffer timed on the host at submit.
 */
export class GpuCommands {
  private encoder: GPUCommandEncoder;
  private pass: GPUComputePassEncoder | undefined;
  private readonly labels: string[] = [];
  private batch: TimestampBatch | undefined;
  /** Host mode: finished command buffers, each either one profiled dispatch or other work. */
  private readonly hostBuffers: { buffer: GPUCommandBuffer; label?: string }[] = [];
  private submitted = false;
  /** Run once the work is submitted (transient buffers: WebGPU keeps them for the submitted work). */
  private readonly releases: (() => void)[] = [];

  constructor(
    private readonly device: GPUDevice,
    private readonly profiler: Profiler,
    private readonly label = 'commands',
    /** Most profiled dispatches one submit may hold (timestamps mode). */
    private readonly maxProfiled = 2048,
  ) {
    this.encoder = device.createCommandEncoder({ label });
  }

  get commandEncoder(): GPUCommandEncoder {
    this.endPass();
    return this.encoder;
  }

  dispatch(compiled: CompiledPipeline, bindGroups: readonly GPUBindGroup[], x: number, y = 1, z = 1, label = compiled.label): void {
    if (x === 0 || y === 0 || z === 0) return;
    const limit = this.device.limits.maxComputeWorkgroupsPerDimension;
    if (x > limit || y > limit || z > limit) throw new Error(`${label}: dispatch ${x}x${y}x${z} exceeds ${limit} workgroups per dimension`);
    this.record(compiled, bindGroups, { kind: 'direct', x, y, z }, label);
  }

  dispatchIndirect(compiled: CompiledPipeline, bindGroups: readonly GPUBindGroup[], buffer: GPUBuffer, offset = 0, label = compiled.label): void {
    this.record(compiled, bindGroups, { kind: 'indirect', buffer, offset }, label);
  }

  /** Offsets are within each range (a buffer, or an arena member's region). */
  copyBuffer(source: GpuRange, sourceOffset: number, destination: GpuRange, destinationOffset: number, size: number): void {
    const from = rangeOf(source);
    const to = rangeOf(destination);
    this.commandEncoder.copyBufferToBuffer(from.buffer, from.offset + sourceOffset, to.buffer, to.offset + destinationOffset, size);
  }

  /** Zeroes a buffer or region (or `size` bytes of it from `offset`). */
  clearBuffer(target: GpuRange, offset = 0, size?: number): void {
    const range = rangeOf(target);
    this.commandEncoder.clearBuffer(range.buffer, range.offset + offset, size ?? range.size - offset);
  }

  /**
   * Writes a GPU timestamp after all work recorded so far (the end of an empty compute pass),
   * for timing whole stages. Needs `timestamp-query`.
   */
  timestamp(querySet: GPUQuerySet, index: number): void {
    this.commandEncoder.beginComputePass({ label: 'timestamp', timestampWrites: { querySet, endOfPassWriteIndex: index } }).end();
  }

  private record(compiled: CompiledPipeline, bindGroups: readonly GPUBindGroup[], dispatch: Dispatch, label: string) {
    const mode = this.profiler.mode;
    if (mode === 'off') {
      this.pass ??= this.encoder.beginComputePass({ label: this.label });
      encodeDispatch(this.pass, compiled, bindGroups, dispatch);
      return;
    }
    this.endPass();
    this.profiler.describe(label, pipelineConfig(compiled));
    if (mode === 'timestamps') {
      if (this.labels.length >= this.maxProfiled) throw new Error(`more than ${this.maxProfiled} profiled dispatches in one submit`);
      this.batch ??= this.profiler.createTimestampBatch(this.maxProfiled);
      const index = this.labels.length;
      const pass = this.encoder.beginComputePass({
        label,
        timestampWrites: { querySet: this.batch.querySet, beginningOfPassWriteIndex: 2 * index, endOfPassWriteIndex: 2 * index + 1 },
      });
      encodeDispatch(pass, compiled, bindGroups, dispatch);
      pass.end();
      this.labels.push(label);
    } else {
      // host mode: close what came before, then one command buffer holding just this dispatch
      this.hostBuffers.push({ buffer: this.encoder.finish() });
      const encoder = this.device.createCommandEncoder({ label });
      const pass = encoder.beginComputePass({ label });
      encodeDispatch(pass, compiled, bindGroups, dispatch);
      pass.end();
      this.hostBuffers.push({ buffer: encoder.finish(), label });
      this.encoder = this.device.createCommandEncoder({ label: this.label });
    }
  }

  private endPass() {
    if (this.pass) {
      this.pass.end();
      this.pass = undefined;
    }
  }

  /** `release` runs right after this work is submitted: it may destroy buffers the work uses. */
  afterSubmit(release: () => void): void {
    this.releases.push(release);
  }

  /**
   * Submits the recorded work. Resolves at once unless the profiler is in host mode (then after
   * every profiled dispatch has been timed). Never waits for the GPU otherwise.
   */
  async submit(): Promise<void> {
    if (this.submitted) throw new Error(`${this.label}: submitted twice`);
    this.submitted = true;
    this.endPass();
    const queue = this.device.queue;
    if (this.profiler.mode === 'host') {
      this.hostBuffers.push({ buffer: this.encoder.finish() });
      await queue.onSubmittedWorkDone();
      for (const { buffer, label } of this.hostBuffers) {
        const t0 = performance.now();
        queue.submit([buffer]);
        if (label !== undefined) {
          await queue.onSubmittedWorkDone();
          this.profiler.record(label, (performance.now() - t0) * 1e6);
        }
      }
      this.release();
      return;
    }
    if (this.batch && this.labels.length) this.batch.encodeResolve(this.encoder, this.labels.length);
    queue.submit([this.encoder.finish()]);
    if (this.batch && this.labels.length) {
      const labels = [...this.labels];
      this.profiler.track(this.batch.collect(labels, (l, ns) => this.profiler.record(l, ns)));
    }
    this.release();
  }

  private release(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

function encodeDispatch(pass: GPUComputePassEncoder, compiled: CompiledPipeline, bindGroups: readonly GPUBindGroup[], dispatch: Dispatch) {
  pass.setPipeline(compiled.pipeline);
  bindGroups.forEach((group, index) => pass.setBindGroup(index, group));
  if (dispatch.kind === 'direct') pass.dispatchWorkgroups(dispatch.x, dispatch.y, dispatch.z);
  else pass.dispatchWorkgroupsIndirect(dispatch.buffer, dispatch.offset);
}

/** A pipeline in a few words: its variant, its override constants, and whether and why it is packed. */
export function pipelineConfig(compiled: CompiledPipeline): string {
  const constants = Object.entries(compiled.constants).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(' ');
  return [compiled.variant, constants, compiled.packReason ? `packed: ${compiled.packReason}` : ''].filter(Boolean).join('; ');
}
