import type { BackendChoice } from '../../shared/contract/gpu.js';
import { HandlerSet } from '../../shared/rpc/transport.js';
import { openGpu, type DeviceLostInfo, type GpuContext } from './gpu/context.js';
import type { KernelVariant } from './gpu/kernels.js';

export interface EngineOptions {
  backend: BackendChoice;
  adapter: string;
  kernelVariant: 'auto' | KernelVariant;
  profile: boolean;
  /** --gpu-memory-budget in bytes; undefined: the adapter's estimate (gpu/memory.ts). */
  memoryBudgetBytes?: number;
}

export interface EngineLog {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  source: string;
  timeMs: number;
}

/**
 * The engine's process-wide state: the GPU context (opened lazily, once) and the log/device-loss
 * streams the host and the CLI subscribe to. Pure Node: no Electron, no DOM.
 */
export class Engine {
  private gpuPromise: Promise<GpuContext> | undefined;
  readonly logs = new HandlerSet<[EngineLog]>();
  readonly deviceLost = new HandlerSet<[DeviceLostInfo]>();

  constructor(readonly options: EngineOptions) {}

  gpu(): Promise<GpuContext> {
    if (!this.gpuPromise) {
      this.gpuPromise = openGpu(this.options).then((ctx) => {
        this.log('info', `GPU: ${ctx.info.adapter.name} (${ctx.info.backend}, kernels: ${ctx.info.variant})`, 'gpu');
        ctx.onLost((info) => {
          this.log('error', `GPU device lost (${info.reason}): ${info.message}`, 'gpu');
          this.deviceLost.emit(info);
        });
        return ctx;
      });
      this.gpuPromise.catch(() => {
        this.gpuPromise = undefined;
      });
    }
    return this.gpuPromise;
  }

  log(level: EngineLog['level'], message: string, source = 'engine'): void {
    this.logs.emit({ level, message, source, timeMs: Date.now() });
  }

  async dispose(): Promise<void> {
    const pending = this.gpuPromise;
    this.gpuPromise = undefined;
    if (pending) {
      try {
        (await pending).destroy();
      } catch {
        // never opened
      }
    }
  }
}
