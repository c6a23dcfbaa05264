/**
 * What each kernel family gets on a device: its variant, its sizing constants and why, and
 * whether that fits the device's limits (workgroup storage, storage buffers per stage,
 * invocations per workgroup). `info` and the device-matrix doc show it.
 *
 * `kernelPlan` states what `Rasterizer.create` (with training's backward, through the same
 * `fitBackward`), the scan and the radix sort choose. `measureKernelPlan` reads the needs from the WGSL itself, so a plan that
 * does not fit is reported before any pipeline fails to compile.
 */
import { KernelPlanSchema, type GpuInfo, type KernelFamilyFit, type KernelPlan } from '../../../shared/contract/gpu.js';
import type { GpuContext } from '../gpu/context.js';
import type { KernelRegistry, KernelVariant } from '../gpu/kernels.js';
import { usedBindings, workgroupMemoryBytes } from '../gpu/wgsl-analysis.js';
import { deviceLimits, fitBackward } from './backward-fit.js';
import { gatherItems, type RasterTuning } from './tuning.js';

export interface PlannedEntry {
  kernel: string;
  entryPoint: string;
  constants: Record<string, number>;
  consts?: Record<string, number>;
}

export interface PlannedFamily {
  family: string;
  variant: KernelVariant;
  /** The sizing constants shown (the entries' shared ones). */
  constants: Record<string, number>;
  reason: string;
  entries: PlannedEntry[];
}

const WG = 256;
const ITEMS = 4;

/** Today's choices; `backward`: the options training creates its rasterizer with (TRAINING_BACKWARD), the only command that compiles one. */
export function kernelPlan(info: GpuInfo, backward: RasterTuning): PlannedFamily[] {
  const variant = info.variant;
  const why = info.variantForced
    ? `${variant}: forced (--kernel-variant)`
    : variant === 'subgroup'
      ? `subgroup: the adapter has subgroups (${info.subgroupMinSize}..${info.subgroupMaxSize} lanes)`
      : 'portable: the adapter has no subgroups feature';
  const features = { OUT_MEDIAN: 0, OUT_NORMALS: 0, OUT_DISTORTION: 0, NORMAL_SLOTS: 1, RECORDS: 3 };
  // The rasterizer's own chooser (backward-fit.ts): the plan shows exactly what training compiles.
  const fit = fitBackward(deviceLimits(info), { ...backward, variant, features });
  const rasterBackward: PlannedEntry = { kernel: 'rasterize', entryPoint: fit.entryPoint, constants: fit.constants };
  const shown = (entry: PlannedEntry, keys: string[]) => Object.fromEntries(keys.filter((k) => k in entry.constants).map((k) => [k, entry.constants[k]]));
  return [
    { family: 'project', variant, constants: { WG, BIG: 32 }, reason: why, entries: [{ kernel: 'project', entryPoint: 'project_forward', constants: { WG, OUT_NORMALS: 0, BIG: 32 } }, { kernel: 'project', entryPoint: 'project_backward', constants: { WG, OUT_NORMALS: 0 } }] },
    { family: 'intersect', variant, constants: { WG, BIG: 32 }, reason: why, entries: ['visible_args', 'finish_count', 'compact_visible', 'gather_sorted', 'emit', 'resolve'].map((entryPoint): PlannedEntry => ({ kernel: 'intersect', entryPoint, constants: entryPoint === 'emit' ? { WG, BIG: 32 } : entryPoint === 'gather_sorted' ? { WG, OUT_NORMALS: 0 } : { WG } })) },
    { family: 'scan', variant, constants: { WG, ITEMS }, reason: why, entries: ['reduce_blocks', 'scan_blocks'].map((entryPoint) => ({ kernel: 'scan', entryPoint, constants: { WG, ITEMS } })) },
    { family: 'radix-sort', variant, constants: { WG, ITEMS }, reason: why, entries: ['rs_setup', 'rs_count', 'rs_scatter'].map((entryPoint): PlannedEntry => ({ kernel: 'radix-sort', entryPoint, constants: entryPoint === 'rs_setup' ? { WG } : { WG, BITS: 8 }, consts: { ITEMS } })) },
    { family: 'rasterize forward', variant, constants: {}, reason: why, entries: [{ kernel: 'rasterize', entryPoint: 'rasterize_forward', constants: { OUT_MEDIAN: 0, OUT_NORMALS: 0, OUT_DISTORTION: 0, NORMAL_SLOTS: 1 } }] },
    {
      family: 'rasterize backward (train)',
      variant: fit.variant,
      constants: shown(rasterBackward, ['BATCH_B', 'BATCH_CAS', 'PPT', 'MAX_SUBGROUPS', 'REDUCE_SPLATS', 'NORMAL_SLOTS']),
      reason: fit.variant === variant ? `${why}; ${fit.reason}` : fit.reason,
      entries: [rasterBackward],
    },
    { family: 'gather', variant, constants: { WG, ITEMS: gatherItems() }, reason: why, entries: ['gather_grads', 'gather_carries'].map((entryPoint) => ({ kernel: 'gather', entryPoint, constants: { WG, ITEMS: gatherItems(), OUT_NORMALS: 0, SCAN_NORMALS: 1 } })) },
  ];
}

/**
 * Each family's largest needs, read from its WGSL as the device compiles it (packed where the
 * registry packs it: gpu/wgsl-packing.ts), against the device's limits. Storage buffers are those
 * the entry point references statically (an upper bound: Dawn lays out after override
 * substitution).
 */
export function measureKernelPlan(plan: readonly PlannedFamily[], kernels: KernelRegistry, limits: Readonly<Record<string, number>>): KernelPlan {
  const families: KernelFamilyFit[] = plan.map((family) => {
    let workgroupStorageBytes = 0;
    let storageBuffers = 0;
    let invocations = 0;
    const packed: string[] = [];
    for (const entry of family.entries) {
      const packing = kernels.packingFor(entry.kernel, entry.entryPoint, family.variant, entry.consts ?? {}, limits.maxStorageBuffersPerShaderStage);
      if (packing.packed) packed.push(`${entry.entryPoint} packed (${packing.reason})`);
      const source = kernels.source(entry.kernel, family.variant, entry.consts ?? {}, packing.packed ? entry.entryPoint : undefined);
      workgroupStorageBytes = Math.max(workgroupStorageBytes, workgroupMemoryBytes(source, entry.entryPoint, entry.constants));
      storageBuffers = Math.max(storageBuffers, usedBindings(source, entry.entryPoint, 0, 'storage').size);
      invocations = Math.max(invocations, entry.constants.WG ?? WG);
    }
    const over = [
      workgroupStorageBytes > limits.maxComputeWorkgroupStorageSize ? `workgroup storage ${workgroupStorageBytes} B > ${limits.maxComputeWorkgroupStorageSize} B` : '',
      invocations > limits.maxComputeInvocationsPerWorkgroup ? `${invocations} invocations > ${limits.maxComputeInvocationsPerWorkgroup}` : '',
      storageBuffers > limits.maxStorageBuffersPerShaderStage ? `${storageBuffers} storage buffers > ${limits.maxStorageBuffersPerShaderStage}` : '',
    ].filter(Boolean);
    const reason = packed.length ? `${family.reason}; ${packed.join('; ')}` : family.reason;
    return { family: family.family, variant: family.variant, constants: family.constants, reason, needs: { workgroupStorageBytes, storageBuffers, invocations }, fits: !over.length, ...(over.length ? { overLimits: over.join('; ') } : {}) };
  });
  return KernelPlanSchema.parse(families);
}

/** The plan of this device, measured: what `info` and the host's system.info report. */
export function describeKernels(ctx: GpuContext, backward: RasterTuning): KernelPlan {
  return measureKernelPlan(kernelPlan(ctx.info, backward), ctx.kernels, ctx.info.limits);
}
