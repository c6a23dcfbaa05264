import { paramsWithPrefix, resolveParams, type ParamValue } from '../../shared/params/index.js';
import type { EngineOptions } from './engine.js';
import { parseByteSize } from './gpu/memory.js';

/** Engine options from explicit values (CLI flags) over environment variables over defaults. */
export function engineOptionsFrom(explicit: Readonly<Record<string, ParamValue>> = {}, env: NodeJS.ProcessEnv = process.env): EngineOptions {
  const v = resolveParams(paramsWithPrefix('system.'), explicit, { env });
  return { backend: v['system.backend'], adapter: v['system.adapter'], kernelVariant: v['system.kernelVariant'], profile: v['system.profile'], memoryBudgetBytes: parseByteSize(v['system.gpuMemoryBudget']) };
}
