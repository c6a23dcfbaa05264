/**
 * The one place that loads Dawn's Node binding (npm `webgpu`, a native addon). Everything else
 * in the engine receives a GPUDevice from context.ts. Loading is lazy so that `--help` and the
 * parts of the CLI that need no GPU start instantly and work where the addon cannot load.
 */
import { createRequire } from 'node:module';

type DawnModule = { create: (flags: string[]) => GPU; globals: Record<string, unknown> };

let loaded: DawnModule | undefined;

export async function loadDawn(): Promise<DawnModule> {
  if (loaded) return loaded;
  let mod: DawnModule;
  try {
    mod = (await import('webgpu')) as unknown as DawnModule;
  } catch (error) {
    // Bundles resolve `webgpu` from the project root; fall back to require for CJS hosts.
    try {
      mod = createRequire(import.meta.url)('webgpu') as DawnModule;
    } catch {
      throw new Error(`cannot load the WebGPU runtime (npm package "webgpu"): ${(error as Error).message}`);
    }
  }
  // GPUBufferUsage, GPUMapMode, GPUShaderStage... are used as globals by WebGPU code.
  for (const [name, value] of Object.entries(mod.globals)) {
    if (!(name in globalThis)) (globalThis as Record<string, unknown>)[name] = value;
  }
  loaded = mod;
  return mod;
}
