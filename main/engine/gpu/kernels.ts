import { preprocessWgsl, type Defines } from './wgsl.js';
import { KERNEL_SOURCES } from './kernel-sources.js';
import { usedBindings } from './wgsl-analysis.js';
import { needsPacking, packSource, type PackedBinding } from './wgsl-packing.js';

export type KernelVariant = 'subgroup' | 'portable';

export interface PipelineRequest {
  /** Kernel family: a file in kernels/ without .wgsl. */
  kernel: string;
  entryPoint: string;
  /** WGSL `override` constants; part of the cache key. */
  constants?: Readonly<Record<string, number>>;
  /**
   * Module-level `const NAME: u32 = value;` declarations prepended to the source, for sizes WGSL
   * requires as const-expressions (private arrays). Part of the cache key; one module each.
   */
  consts?: Readonly<Record<string, number>>;
  /** Force a capability variant for this pipeline (A/B tests); default: the device's. */
  variant?: KernelVariant;
}

export interface CompiledPipeline {
  readonly pipeline: GPUComputePipeline;
  readonly label: string;
  readonly variant: KernelVariant;
  readonly constants: Readonly<Record<string, number>>;
  readonly consts: Readonly<Record<string, number>>;
  /**
   * The group-0 bindings the entry point statically uses: exactly what its automatic layout
   * holds (computed on first use). `bindGroup` binds only these, so one entries list can serve
   * entry points of a kernel that use different subsets.
   */
  readonly bindings: ReadonlySet<number>;
  /**
   * The arenas this pipeline binds whole (wgsl-packing.ts): empty where the device binds every
   * member on its own. `bindGroup` turns a member's region into its arena's buffer and offsets.
   */
  readonly packs: readonly PackedBinding[];
  /** Why it is packed (limits or access), when it is. */
  readonly packReason?: string;
}

/**
 * Loads WGSL from kernels/, preprocesses it per capability variant, compiles pipelines
 * asynchronously (createComputePipelineAsync, requested at once: several compile in parallel on
 * Dawn's threads at start-up) and caches them per configuration. Shader modules are cached per (kernel, variant).
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

  /**
   * Whether an entry point is packed on this device (its storage bindings over the limit, or
   * reads and writes of one arena): `ARGONAUT_PACK=all` packs every entry point with arena
   * members (tests of the packed path on a device that does not need it).
   */
  packingFor(kernel: string, entryPoint: string, variant: KernelVariant = this.variant, consts: Readonly<Record<string, number>> = {}, maxStorageBuffers = this.device.limits.maxStorageBuffersPerShaderStage): { packed: boolean; reason?: string; storageBuffers: number } {
    const source = this.source(kernel, variant, consts);
    const decision = needsPacking(source, entryPoint, maxStorageBuffers);
    if (!decision.packed && process.env.ARGONAUT_PACK === 'all' && packSource(source).packs.length) return { ...decision, packed: true, reason: 'ARGONAUT_PACK=all' };
    return decision;
  }

  /** The preprocessed source; `packedFor`: packed for that entry point (wgsl-packing.ts). */
  source(kernel: string, variant: KernelVariant = this.variant, consts: Readonly<Record<string, number>> = {}, packedFor?: string): string {
    const unpacked = this.unpackedSource(kernel, variant, consts);
    return packedFor ? packSource(unpacked, packedFor).source : unpacked;
  }

  private unpackedSource(kernel: string, variant: KernelVariant, consts: Readonly<Record<string, number>>): string {
    const body = preprocessWgsl(kernel, this.sources, KernelRegistry.definesFor(variant));
    const declarations = Object.entries(consts).map(([name, value]) => {
      if (!/^[A-Z_][A-Z0-9_]*$/.test(name) || !Number.isInteger(value) || value < 0) throw new Error(`kernel ${kernel}: bad module constant ${name}=${value}`);
      return `const ${name}: u32 = ${value}u;`;
    });
    if (!declarations.length) return body;
    // after the leading enable/diagnostic directives
    const lines = body.split('\n');
    let at = 0;
    while (at < lines.length && /^(enable|diagnostic)\b/.test(lines[at])) at++;
    return [...lines.slice(0, at), ...declarations, ...lines.slice(at)].join('\n');
  }

  private module(kernel: string, variant: KernelVariant, consts: Readonly<Record<string, number>>, packedFor?: string): GPUShaderModule {
    const key = `${kernel}|${variant}|${describe(consts)}|${packedFor ?? ''}`;
    let module = this.modules.get(key);
    if (!module) {
      module = this.device.createShaderModule({ label: `${kernel} (${variant}${packedFor ? `, packed for ${packedFor}` : ''})`, code: this.source(kernel, variant, consts, packedFor) });
      this.modules.set(key, module);
    }
    return module;
  }

  static cacheKey(request: PipelineRequest, variant: KernelVariant): string {
    return `${request.kernel}:${request.entryPoint}|${variant}|${describe(request.constants ?? {})}|${describe(request.consts ?? {})}`;
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

  /** Every pipeline requested so far, by cache key (`kernel:entryPoint|variant|...`): what a command compiled (tests, reports). */
  get requestedKeys(): string[] {
    return [...this.pipelines.keys()];
  }

  private async compile(request: PipelineRequest, variant: KernelVariant, key: string): Promise<CompiledPipeline> {
    const packing = this.packingFor(request.kernel, request.entryPoint, variant, request.consts ?? {});
    const packedFor = packing.packed ? request.entryPoint : undefined;
    const module = this.module(request.kernel, variant, request.consts ?? {}, packedFor);
    const constants = { ...(request.constants ?? {}) };
    // The pipeline is requested now, not after the module's compilation info: that answer comes
    // back through the event loop, and a start-up that is busy on this thread (initial splats,
    // images) would hold every compile until it is done; Dawn compiles on its own threads. The
    // error scope closes right after the call, so scopes of pipelines requested together nest.
    const info = module.getCompilationInfo();
    this.device.pushErrorScope('validation');
    const creating = this.device.createComputePipelineAsync({ label: key, layout: 'auto', compute: { module, entryPoint: request.entryPoint, constants } });
    const scope = this.device.popErrorScope();
    creating.catch(() => undefined); // a module error below is reported first
    // Module errors first, from the module itself, naming its lines.
    const errors = (await info).messages.filter((m) => m.type === 'error');
    if (errors.length) {
      await scope;
      throw new Error(`kernel ${key} failed to compile:\n${errors.map((m) => `${request.kernel}.wgsl (preprocessed) ${m.lineNum}:${m.linePos} ${m.message}`).join('\n')}`);
    }
    let pipeline: GPUComputePipeline;
    try {
      pipeline = await creating;
    } catch (error) {
      await scope;
      throw new Error(`kernel ${key} failed to compile: ${await describeCompileError(module, error)}`);
    }
    const scopeError = await scope;
    if (scopeError) throw new Error(`kernel ${key} failed to compile: ${scopeError.message}`);
    const consts = { ...(request.consts ?? {}) };
    let bindings: Set<number> | undefined;
    const source = () => this.source(request.kernel, variant, consts, packedFor);
    const packs = packedFor ? packSource(this.source(request.kernel, variant, consts), packedFor).packs.filter((p) => usedBindings(source(), request.entryPoint).has(p.binding)) : [];
    return {
      pipeline,
      label: `${request.kernel}.${request.entryPoint}`,
      variant,
      constants,
      consts,
      packs,
      packReason: packing.reason,
      get bindings() {
        return (bindings ??= usedBindings(source(), request.entryPoint));
      },
    };
  }
}

function describe(values: Readonly<Record<string, number>>): string {
  return Object.entries(values)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
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
