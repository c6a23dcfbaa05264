import type { BackendChoice, GpuInfo } from '../../../shared/contract/gpu.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { chooseAdapter } from './adapter.js';
import { GpuCommands } from './commands.js';
import { KernelRegistry, type KernelVariant } from './kernels.js';
import { estimatedBudget, GpuMemory } from './memory.js';
import { Profiler, type ProfilerMode } from './profiler.js';

export interface OpenGpuOptions {
  /**
   * Keep Dawn's API validation and shader robustness (bounds clamping). Default: on for software
   * adapters and tests, off on GPUs (see dawnToggles), where they cost 2x in training speed.
   */
  validate?: boolean;
  backend?: BackendChoice;
  adapter?: string;
  kernelVariant?: 'auto' | KernelVariant;
  profile?: boolean;
  /**
   * Limits to request lower than the adapter's (e.g. WebGPU's default 16 KiB of workgroup
   * storage), so a test proves every pipeline fits a smaller conforming device. Dawn never
   * gives less than the default of a limit, whatever is asked.
   */
  limits?: Readonly<Record<string, number>>;
  /** Bytes of GPU buffers the engine may hold (--gpu-memory-budget); undefined: memory.ts's estimate. */
  memoryBudgetBytes?: number;
}

export interface DeviceLostInfo {
  reason: string;
  message: string;
}

const WANTED_FEATURES = ['subgroups', 'timestamp-query', 'shader-f16'] as const;

/**
 * Everything the engine needs from the GPU: the device opened with the adapter's real limits
 * (WebGPU's defaults are tiny) and the optional features it has, the kernel registry with the
 * capability variant chosen for this device, the profiler, and device-lost notification.
 */
export class GpuContext {
  readonly kernels: KernelRegistry;
  readonly profiler: Profiler;
  /** The memory ledger (memory.ts): bytes alive and at most so far, the budget, guarded growth. */
  readonly memory: GpuMemory;
  private readonly lostHandlers = new Set<(info: DeviceLostInfo) => void>();
  /** WebGPU validation and out-of-memory errors nobody captured (they would fail silently). */
  private readonly uncaptured: string[] = [];
  private lostInfo: DeviceLostInfo | undefined;
  private destroyed = false;

  constructor(
    readonly device: GPUDevice,
    readonly info: GpuInfo,
    profilerMode: ProfilerMode,
    /** Keeps the Dawn instance alive for the device's lifetime. */
    private readonly instance: GPU,
    memoryBudgetBytes?: number,
  ) {
    this.memory = new GpuMemory(memoryBudgetBytes !== undefined ? { totalBytes: memoryBudgetBytes, source: 'configured' } : estimatedBudget(info.adapter?.software ?? false), info.limits?.maxBufferSize ?? Infinity);
    this.kernels = new KernelRegistry(device, info.variant);
    this.profiler = new Profiler(device, profilerMode);
    this.trackMemory();
    if (typeof (device as { createBuffer?: unknown }).createBuffer === 'function') {
      device.onuncapturederror = (event: GPUUncapturedErrorEvent) => {
        if (this.uncaptured.length < 20) this.uncaptured.push(event.error?.message ?? String(event));
      };
    }
    void device.lost.then((lost) => {
      this.lostInfo = { reason: lost.reason ?? 'unknown', message: lost.message ?? '' };
      if (this.destroyed) return; // our own destroy() is not a loss
      for (const handler of this.lostHandlers) handler(this.lostInfo);
    });
  }

  /** Routes every createBuffer through the ledger: counted, refused past the budget (memory.ts). */
  private trackMemory() {
    const device = this.device as GPUDevice & { createBuffer?: GPUDevice['createBuffer'] };
    if (typeof device.createBuffer !== 'function') return;
    const create = device.createBuffer.bind(device);
    device.createBuffer = (descriptor: GPUBufferDescriptor) => this.memory.record(descriptor, create);
  }

  /** Throws (and clears) the WebGPU errors raised since the last check, naming `where`. */
  assertNoErrors(where: string): void {
    if (!this.uncaptured.length) return;
    const errors = this.uncaptured.splice(0);
    throw new ArgonautError('internal', `GPU error during ${where}: ${errors[0].split('\n')[0]}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`, { errors });
  }

  get hasSubgroups(): boolean {
    return this.info.features.includes('subgroups');
  }

  get isLost(): boolean {
    return this.lostInfo !== undefined && !this.destroyed;
  }

  /** Subscribes to device loss (driver reset, GPU removed, TDR). Not called for destroy(). */
  onLost(handler: (info: DeviceLostInfo) => void): () => void {
    this.lostHandlers.add(handler);
    return () => this.lostHandlers.delete(handler);
  }

  commands(label?: string): GpuCommands {
    return new GpuCommands(this.device, this.profiler, label);
  }

  destroy(): void {
    this.destroyed = true;
    this.device.destroy();
  }
}

function limitsRecord(limits: GPUSupportedLimits): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key in limits) {
    const value = (limits as unknown as Record<string, unknown>)[key];
    if (typeof value === 'number') out[key] = value;
  }
  return out;
}

export function chooseVariant(hasSubgroups: boolean, requested: 'auto' | KernelVariant): { variant: KernelVariant; forced: boolean } {
  if (requested === 'auto') return { variant: hasSubgroups ? 'subgroup' : 'portable', forced: false };
  if (requested === 'subgroup' && !hasSubgroups) {
    throw new ArgonautError('no_gpu', 'kernel variant "subgroup" was forced but this device has no subgroups feature; use --kernel-variant portable or auto');
  }
  return { variant: requested, forced: true };
}

export async function openGpu(options: OpenGpuOptions = {}): Promise<GpuContext> {
  const profile = options.profile ?? false;
  const choice = await chooseAdapter({
    backend: options.backend,
    adapter: options.adapter || undefined,
    // software OpenGL (llvmpipe) keeps validation: it is the CI and fallback path, and cheap there
    dawnFlags: (backend) => dawnToggles(profile, options.validate ?? (backend === 'opengl' || backend === 'opengles' ? true : undefined)),
  });
  const { adapter } = choice;
  const features = WANTED_FEATURES.filter((f) => adapter.features.has(f));
  const requiredLimits = limitsRecord(adapter.limits);
  for (const [name, value] of Object.entries(options.limits ?? {})) {
    if (!(name in requiredLimits)) throw new ArgonautError('invalid_argument', `limit ${name} is not one of this adapter's (${choice.name})`);
    // a maximum lowered, or an alignment (min*) raised: both only ever ask for less
    requiredLimits[name] = name.startsWith('min') ? Math.max(requiredLimits[name], value) : Math.min(requiredLimits[name], value);
  }
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({
      label: `argonaut (${choice.name})`,
      requiredFeatures: features as unknown as GPUFeatureName[],
      requiredLimits,
    });
  } catch (error) {
    throw new ArgonautError('no_gpu', `could not open a device on ${choice.name} (${choice.backend}): ${(error as Error).message}`);
  }
  const { variant, forced } = chooseVariant(features.includes('subgroups'), options.kernelVariant ?? 'auto');
  const adapterInfo = adapter.info as GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number };
  const info: GpuInfo = {
    backend: choice.backend,
    featureLevel: choice.featureLevel,
    adapter: {
      name: choice.name,
      vendor: adapterInfo.vendor ?? '',
      architecture: adapterInfo.architecture ?? '',
      description: adapterInfo.description ?? '',
      software: choice.software,
    },
    features: [...device.features].sort(),
    limits: limitsRecord(device.limits),
    subgroupMinSize: adapterInfo.subgroupMinSize ?? 0,
    subgroupMaxSize: adapterInfo.subgroupMaxSize ?? 0,
    variant,
    variantForced: forced,
  };
  const mode: ProfilerMode = !profile ? 'off' : device.features.has('timestamp-query') ? 'timestamps' : 'host';
  return new GpuContext(device, info, mode, choice.instance, options.memoryBudgetBytes);
}

/**
 * Dawn instance toggles. Our kernels are parity-tested with validation and robustness on (CI,
 * tests, the GPU runner); production runs on a GPU skip both: Dawn's per-call validation made
 * training CPU-bound (mic 7k: 28 s -> 13 s on an H200) and the robustness transform's index
 * clamping costs 5-10% in the rasterizer. ARGONAUT_VALIDATE=1 (or validate: true) keeps them;
 * ARGONAUT_DAWN_TOGGLES adds toggles for experiments. The OpenGL backend (Mesa llvmpipe, the
 * CPU fallback and CI) always validates.
 */
export function dawnToggles(profile: boolean, validate?: boolean): string[] {
  const keep = validate ?? (process.env.ARGONAUT_VALIDATE === '1' || process.env.VITEST !== undefined);
  const enable = [...(keep ? [] : ['skip_validation', 'disable_robustness']), ...(process.env.ARGONAUT_DAWN_TOGGLES ? process.env.ARGONAUT_DAWN_TOGGLES.split(',') : [])];
  return [
    // exact timestamps when profiling (Dawn quantizes them by default)
    ...(profile ? ['disable-dawn-features=timestamp_quantization'] : []),
    ...(enable.length ? [`enable-dawn-features=${enable.join(',')}`] : []),
  ];
}
