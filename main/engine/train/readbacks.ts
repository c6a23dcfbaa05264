/**
 * Asynchronous readbacks of a training step: a value is copied into a pooled staging buffer in
 * the step's own submit and read when the GPU gets there, so no step waits for the GPU. A staging
 * buffer is busy from its copy until its value has been used.
 */
import type { GpuCommands } from '../gpu/commands.js';

export interface Staged {
  buffer: GPUBuffer;
  bytes: number;
}

/** More pending reads than this and the oldest are awaited (bounds the staging pool). */
const MAX_PENDING = 64;
const KEEP_AFTER_DRAIN = 32;

export class StepReadbacks {
  private readonly pool: GPUBuffer[] = [];
  private readonly busy = new Set<GPUBuffer>();
  private readonly pending: Promise<void>[] = [];

  constructor(private readonly device: GPUDevice) {}

  /** Records a copy of `bytes` of `source` into a free staging buffer. */
  copy(commands: GpuCommands, source: GPUBuffer, bytes: number): Staged {
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    let buffer = this.pool.find((b) => b.size >= size && b.mapState === 'unmapped' && !this.busy.has(b));
    if (!buffer) {
      buffer = this.device.createBuffer({ label: 'train.staging', size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      this.pool.push(buffer);
    }
    this.busy.add(buffer);
    commands.copyBuffer(source, 0, buffer, 0, Math.ceil(bytes / 4) * 4);
    return { buffer, bytes };
  }

  /** Calls `use` with the staged bytes once the GPU has written them (after the copy's submit). */
  read(staged: Staged, use: (data: ArrayBuffer) => void): void {
    const b = staged.buffer;
    const p = b.mapAsync(GPUMapMode.READ, 0, b.size).then(() => {
      use(b.getMappedRange(0, b.size).slice(0, staged.bytes));
      b.unmap();
      this.busy.delete(b);
    });
    this.pending.push(p);
    if (this.pending.length > MAX_PENDING) void this.drain(KEEP_AFTER_DRAIN);
  }

  /** Waits until at most `keep` reads are pending (0: every value has been used). */
  async drain(keep = 0): Promise<void> {
    while (this.pending.length > keep) await this.pending.shift();
  }

  destroy(): void {
    for (const b of this.pool) b.destroy();
  }
}
