/**
 * The rasterizer's backward configuration sized from the device's limits. The subgroup backward
 * keeps one partial sum per (subgroup, batch slot, value) in workgroup memory, so its size grows
 * with the number of subgroups in a tile (256 pixels / pixels per thread / the smallest subgroup
 * size) times the batch: 4.6 KiB with the H200's 32-lane subgroups, 37 KiB with SwiftShader's
 * 4 lanes, over its 32 KiB. The bytes come from the WGSL itself (wgsl-analysis), not from a
 * copy of its declarations, so a kernel edit cannot make the fit lie.
 */
import type { GpuInfo } from '../../../shared/contract/gpu.js';
import { KERNEL_SOURCES } from '../gpu/kernel-sources.js';
import { KernelRegistry, type KernelVariant } from '../gpu/kernels.js';
import { workgroupMemoryBytes } from '../gpu/wgsl-analysis.js';
import { preprocessWgsl } from '../gpu/wgsl.js';

/** The limits that size pipelines (WebGPU's names in parentheses). */
export interface DeviceLimits {
  /** maxComputeWorkgroupStorageSize */
  workgroupStorage: number;
  /** maxStorageBuffersPerShaderStage */
  storageBuffersPerStage: number;
  /** maxComputeInvocationsPerWorkgroup */
  invocationsPerWorkgroup: number;
  /** The adapter's smallest subgroup size (0: unknown or no subgroups). */
  subgroupMinSize: number;
  subgroupMaxSize: number;
}

/** WebGPU's guaranteed limits: what a device requested without requiredLimits gets. */
export const WEBGPU_DEFAULT_LIMITS: DeviceLimits = { workgroupStorage: 16384, storageBuffersPerStage: 8, invocationsPerWorkgroup: 256, subgroupMinSize: 0, subgroupMaxSize: 0 };

export function deviceLimits(info: Pick<GpuInfo, 'limits' | 'subgroupMinSize' | 'subgroupMaxSize'>): DeviceLimits {
  const limit = (name: string, fallback: number) => info.limits[name] ?? fallback;
  return {
    workgroupStorage: limit('maxComputeWorkgroupStorageSize', WEBGPU_DEFAULT_LIMITS.workgroupStorage),
    storageBuffersPerStage: limit('maxStorageBuffersPerShaderStage', WEBGPU_DEFAULT_LIMITS.storageBuffersPerStage),
    invocationsPerWorkgroup: limit('maxComputeInvocationsPerWorkgroup', WEBGPU_DEFAULT_LIMITS.invocationsPerWorkgroup),
    subgroupMinSize: info.subgroupMinSize,
    subgroupMaxSize: info.subgroupMaxSize,
  };
}

export interface BackwardRequest {
  variant: KernelVariant;
  backwardReduce?: 'partials' | 'cas';
  backwardBatch?: number;
  backwardPixels?: 1 | 2;
  absgrad?: boolean;
  /** The optional-output constants of the backward (OUT_MEDIAN, OUT_NORMALS, ..., RECORDS). */
  features: Readonly<Record<string, number>>;
}

export interface BackwardFit {
  /** 'portable' where no subgroup configuration fits. */
  variant: KernelVariant;
  entryPoint: 'rasterize_backward' | 'rasterize_backward_cas';
  /** The override constants the backward pipeline is compiled with. */
  constants: Record<string, number>;
  backwardReduce: 'partials' | 'cas';
  backwardBatch: number;
  backwardPixels: 1 | 2;
  /** Workgroup bytes of the chosen pipeline. */
  workgroupBytes: number;
  /** What was chosen and, where it differs from the preferred configuration, why. */
  reason: string;
}

/** Workgroup bytes of a rasterize entry point with these constants, per variant. */
export type WorkgroupBytes = (variant: KernelVariant, entryPoint: string, constants: Readonly<Record<string, number>>) => number;

const rasterizeSources = new Map<KernelVariant, string>();
export const rasterizeWorkgroupBytes: WorkgroupBytes = (variant, entryPoint, constants) => {
  let source = rasterizeSources.get(variant);
  if (!source) rasterizeSources.set(variant, (source = preprocessWgsl('rasterize', KERNEL_SOURCES, KernelRegistry.definesFor(variant))));
  return workgroupMemoryBytes(source, entryPoint, constants);
};

/**
 * The backward's preferred configuration where the request leaves it open. Subgroup 'partials':
 * 2 pixels per thread, batches of 24 (the best of the H200 sweep, bench raster --sweep: 8..24 x
 * 1..2 px); 'cas': batches of 64; portable: batches of 64.
 */
export function backwardDefaults(variant: KernelVariant, options: Pick<BackwardRequest, 'backwardBatch' | 'backwardReduce' | 'backwardPixels'>): { backwardReduce: 'partials' | 'cas'; backwardBatch: number; backwardPixels: 1 | 2 } {
  const backwardReduce = options.backwardReduce ?? 'partials';
  const partials = variant === 'subgroup' && backwardReduce === 'partials';
  const backwardPixels = options.backwardPixels ?? (partials ? 2 : 1);
  return { backwardReduce, backwardPixels, backwardBatch: options.backwardBatch ?? (partials ? (backwardPixels === 2 ? 24 : 16) : 64) };
}

/** The smallest batch tried before giving up a reduction (the low end of bench raster --sweep). */
const MIN_BATCH = 8;

interface Candidate {
  variant: KernelVariant;
  reduce: 'partials' | 'cas';
  pixels: 1 | 2;
  batch: number;
  entryPoint: BackwardFit['entryPoint'];
  constants: Record<string, number>;
  /** The constant holding the batch length. */
  batchName: 'BATCH_B' | 'BATCH_CAS';
}

/**
 * A candidate's configurations, most preferred first: as requested; then, with normals, b_normal
 * sized to the batch instead of the tile (NORMAL_SLOTS: it only ever holds a batch); then, for
 * the portable backward, 2 and 1 intersections reduced at a time; then ever shorter batches.
 * Constants keep their defaults unless shrunk, so a device where the request fits compiles
 * exactly the pipelines it always has.
 */
function* shrinking(candidate: Candidate): Generator<Record<string, number>> {
  const base = { ...candidate.constants, [candidate.batchName]: candidate.batch };
  yield base;
  const compact = { ...base };
  if (candidate.constants.OUT_NORMALS) yield { ...Object.assign(compact, { NORMAL_SLOTS: candidate.batch }) };
  const reduceSplats = candidate.variant === 'portable' ? [2, 1] : [];
  for (const r of reduceSplats) yield { ...Object.assign(compact, { REDUCE_SPLATS: r }) };
  for (let batch = candidate.batch - 1; batch >= MIN_BATCH; batch--) {
    yield { ...compact, [candidate.batchName]: batch, ...(candidate.constants.OUT_NORMALS ? { NORMAL_SLOTS: batch } : {}) };
  }
}

/**
 * The fastest backward that fits: the preferred configuration (backwardDefaults: the H200
 * sweep's, or the caller's and the tuning cache's) when its workgroup memory fits; else the same
 * reduction made smaller (shrinking); else, for the subgroup variant, the 'cas' reduction (48 B
 * an intersection whatever the subgroup size; no optional outputs); else the portable backward.
 * Throws only where even that does not fit (never on a conforming device: WebGPU guarantees 16 KiB).
 */
export function fitBackward(limits: DeviceLimits, request: BackwardRequest, bytesOf: WorkgroupBytes = rasterizeWorkgroupBytes): BackwardFit {
  const budget = limits.workgroupStorage;
  const preferred = backwardDefaults(request.variant, request);
  const features = request.features;
  const optional = Boolean(features.OUT_MEDIAN || features.OUT_NORMALS || features.OUT_DISTORTION);
  if (optional && preferred.backwardReduce === 'cas') throw new Error("the 'cas' backward has no optional outputs; use 'partials'");
  const absgrad = request.absgrad === false ? 0 : 1;
  const minSubgroup = Math.max(4, limits.subgroupMinSize || 4);
  const candidates: Candidate[] = [];
  if (request.variant === 'subgroup') {
    const cas: Candidate = { variant: 'subgroup', reduce: 'cas', pixels: 1, batch: preferred.backwardReduce === 'cas' ? preferred.backwardBatch : 64, entryPoint: 'rasterize_backward_cas', batchName: 'BATCH_CAS', constants: {} };
    if (preferred.backwardReduce === 'partials') {
      // the tile's 256 pixels in 256 / pixels threads; MAX_SUBGROUPS: as many as the smallest subgroups make
      const pixels: 1 | 2 = 256 / preferred.backwardPixels > limits.invocationsPerWorkgroup ? 2 : preferred.backwardPixels;
      const batch = pixels === preferred.backwardPixels ? preferred.backwardBatch : backwardDefaults('subgroup', { backwardPixels: pixels }).backwardBatch;
      const constants = { PPT: pixels, MAX_SUBGROUPS: Math.ceil(256 / pixels / minSubgroup), ABSGRAD: absgrad, ...features };
      candidates.push({ variant: 'subgroup', reduce: 'partials', pixels, batch, entryPoint: 'rasterize_backward', batchName: 'BATCH_B', constants });
      if (!optional) candidates.push(cas);
    } else {
      candidates.push(cas);
    }
  }
  const portableBatch = request.variant === 'portable' ? preferred.backwardBatch : 64;
  candidates.push({ variant: 'portable', reduce: preferred.backwardReduce, pixels: 1, batch: portableBatch, entryPoint: 'rasterize_backward', batchName: 'BATCH_B', constants: { ...features } });

  const notes: string[] = [];
  for (const candidate of candidates) {
    const label = candidate.variant === 'subgroup' ? `subgroup '${candidate.reduce}' backward` : 'portable backward';
    let wanted: number | undefined;
    let smallest = Infinity;
    for (const constants of shrinking(candidate)) {
      const bytes = bytesOf(candidate.variant, candidate.entryPoint, constants);
      wanted ??= bytes;
      smallest = Math.min(smallest, bytes);
      if (bytes > budget) continue;
      const batch = constants[candidate.batchName];
      if (bytes !== wanted) notes.push(`batch ${candidate.batch} as requested would need ${wanted} B`);
      const shape = candidate.variant === 'subgroup' && candidate.reduce === 'partials' ? `, ${candidate.pixels} px/thread, subgroups of >= ${minSubgroup} lanes` : '';
      const shrunk = ['NORMAL_SLOTS', 'REDUCE_SPLATS'].filter((name) => name in constants && constants[name] !== candidate.constants[name]).map((name) => `, ${name}=${constants[name]}`).join('');
      return {
        variant: candidate.variant,
        entryPoint: candidate.entryPoint,
        constants,
        backwardReduce: candidate.reduce,
        backwardBatch: batch,
        backwardPixels: candidate.pixels,
        workgroupBytes: bytes,
        reason: [`${label}, batch ${batch}${shape}${shrunk}: ${bytes} of ${budget} B workgroup storage`, ...notes].join('; '),
      };
    }
    notes.push(`${label} needs ${wanted} B, at least ${smallest} B`);
  }
  throw new Error(`rasterize.wgsl: no backward fits in ${budget} B of workgroup storage (${notes.join('; ')}); WebGPU guarantees 16384`);
}
