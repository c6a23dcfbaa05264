import type { BackendChoice } from '../../shared/contract/gpu.js';
import { paramsForCommand, resolveParams, type ParamValue } from '../../shared/params/index.js';
import type { EngineOptions } from './engine.js';

/** Engine options from explicit values (CLI flags) over environment variables over defaults. */
export function engineOptionsFrom(explicit: Readonly<Record<string, ParamValue>> = {}, env: NodeJS.ProcessEnv = process.env): EngineOptions {
  const defs = paramsForCommand('*').filter((d) => d.key.startsWith('system.'));
  const v = resolveParams(defs, explicit, { env });
  return {
    backend: v['system.backend'] as BackendChoice,
    adapter: v['system.adapter'] as string,
    kernelVariant: v['system.kernelVariant'] as EngineOptions['kernelVariant'],
    profile: v['system.profile'] as boolean,
  };
}
