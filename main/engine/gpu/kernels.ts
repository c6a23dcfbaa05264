import { preprocessWgsl, type Defines } from './wgsl.js';
import { KERNEL_SOURCES } from './kernel-sources.js';

export type KernelVariant = 'subgroup' | 'portable';

export interface PipelineRequest {
  /** Kernel family: a file in kernels/ without .wgsl. */
  kernel: string;
  entryPoint: string;
  /** WGSL `override` constants; part of the cache key. */
  constants?: Readonly<Record<string, number>>;
  /** Force a capability variant for this pipeline (A/B tests); default: the device's. */
  variant?: KernelVariant;
}

export interface CompiledPipeline {
  readonly pipeline: GPUComputePipeline;
  readonly label: string;
  readonly variant: KernelVariant;
  readonly constants: Readonly<Record<string, number>>;
}

/**
 * Loads WGSL from kernels/, preprocesses it per capability variant, compiles pipelines
 * asynchronously (createComputePipelineAsync, so several compile in parallel at start-up) and
 * caches them per configuration. Shader modules are cached per (kernel, variant).
 */
export class KernelRegistry {
  private readonly modules = new Map<string, GPUShaderModule>();
  private readonly pipelines = new Map<string, Promise<CompiledPipeline>>();

  constructor(
    private readonly device: GPUDevice,
    readonly variant: KernelVariant,
    private readonly sources: Readonly<Record<string, string>> = KERNEL_SOURCES,
  ) {}

  /** Defines visible to `#if` for a variant. */
  static definesFor(variant: KernelVariant): Defines {
    return { SUBGROUPS: variant === 'subgroup' };
  }

  source(kernel: string, variant: KernelVariant = this.variant): string {
    return preprocessWgsl(kernel, this.sources, KernelRegistry.definesFor(variant));
  }

  private module(kernel: string, variant: KernelVariant): GPUShaderModule {
    const key = `${kernel}|${variant}`;
    let module = this.modules.get(key);
    if (!module) {
      module = this.device.createShaderModule({ label: `${kernel} (${variant})`, code: this.source(kernel, variant) });
      this.modules.set(key, module);
    }
    return module;
  }

  static cacheKey(request: PipelineRequest, variant: KernelVariant): string {
    const constants = Object.entries(request.constants ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    return `${request.kernel}:${request.entryPoint}|${variant}|${constants}`;
  }

  get(request: PipelineRequest): Promise<CompiledPipeline> {
    const variant = request.variant ?? this.variant;
    const key = KernelRegistry.cacheKey(request, variant);
    let entry = this.pipelines.get(key);
    if (!entry) {
      entry = this.compile(request, variant, key);
      this.pipelines.set(key, entry);
      entry.catch(() => this.pipelines.delete(key));
    }
    return entry;
  }

  /** Compiles many pipelines in parallel (start-up). */
  preload(requests: readonly PipelineRequest[]): Promise<CompiledPipeline[]> {
    return Promise.all(requests.map((r) => this.get(r)));
  }

  get cachedCount(): number {
    return this.pipelines.size;
  }

  private async compile(request: PipelineRequest, variant: KernelVariant, key: string): Promise<CompiledPipeline> {
    const module = this.module(request.kernel, variant);
    const constants = { ...(request.constants ?? {}) };
    this.device.pushErrorScope('validation');
    let pipeline: GPUComputePipeline;
    try {
      pipeline = await this.device.createComputePipelineAsync({
        label: key,
        layout: 'auto',
        compute: { module, entryPoint: request.entryPoint, constants },
      });
    } catch (error) {
      await this.device.popErrorScope();
      throw new Error(`kernel ${key} failed to compile: ${await describeCompileError(module, error)}`);
    }
    const scopeError = await this.device.popErrorScope();
    if (scopeError) throw new Error(`kernel ${key} failed to compile: ${scopeError.message}`);
    return { pipeline, label: `${request.kernel}.${request.entryPoint}`, variant, constants };
  }
}

async function describeCompileError(module: GPUShaderModule, error: unknown): Promise<string> {
  try {
    const info = await module.getCompilationInfo();
    const messages = info.messages.filter((m) => m.type === 'error').map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
    if (messages.length) return messages.join('\n');
  } catch {
    // fall through
  }
  return (error as Error).message ?? String(error);
}
