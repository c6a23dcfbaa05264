import { z } from 'zod';

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
});
export type GpuInfo = z.infer<typeof GpuInfoSchema>;

export const BACKENDS = ['auto', 'vulkan', 'metal', 'd3d12', 'opengl', 'opengles'] as const;
export type BackendChoice = (typeof BACKENDS)[number];
