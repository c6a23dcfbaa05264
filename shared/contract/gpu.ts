import { z } from 'zod';

/** One kernel family on this device: its variant, sizing constants and why, and its needs against the limits. */
export const KernelFamilyFitSchema = z.object({
  family: z.string(),
  variant: z.enum(['subgroup', 'portable']),
  constants: z.record(z.string(), z.number()),
  reason: z.string(),
  /**
   * The largest over the family's entry points, read from the WGSL. storageBuffers: referenced
   * statically (an upper bound: bindings behind switched-off override constants may drop out).
   * invocations: the WG override, or 256 for the 16x16 tile kernels.
   */
  needs: z.object({ workgroupStorageBytes: z.number().int(), storageBuffers: z.number().int(), invocations: z.number().int() }),
  fits: z.boolean(),
  /** Which limits (workgroup storage, invocations) it exceeds, when it does not fit. */
  overLimits: z.string().optional(),
});
export type KernelFamilyFit = z.infer<typeof KernelFamilyFitSchema>;
export const KernelPlanSchema = z.array(KernelFamilyFitSchema);
export type KernelPlan = z.infer<typeof KernelPlanSchema>;

/** What `info` reports about the GPU the engine chose: one schema for CLI, host and UI. */
export const GpuInfoSchema = z.object({
  backend: z.string(),
  featureLevel: z.enum(['core', 'compatibility']),
  adapter: z.object({
    name: z.string(),
    vendor: z.string(),
    architecture: z.string(),
    description: z.string(),
    software: z.boolean(),
  }),
  features: z.array(z.string()),
  limits: z.record(z.string(), z.number()),
  subgroupMinSize: z.number().int(),
  subgroupMaxSize: z.number().int(),
  variant: z.enum(['subgroup', 'portable']),
  variantForced: z.boolean(),
  /** Per kernel family: variant, constants, why, and whether it fits (info adds it; openGpu does not). */
  kernels: KernelPlanSchema.optional(),
});
export type GpuInfo = z.infer<typeof GpuInfoSchema>;

export const BACKENDS = ['auto', 'vulkan', 'metal', 'd3d12', 'opengl', 'opengles'] as const;
export type BackendChoice = (typeof BACKENDS)[number];

