import type { ParamDef } from './types.js';
import { BACKENDS } from '../contract/gpu.js';

/**
 * THE parameter table. Add a parameter here and it appears in the CLI (`--flag`, `--help`),
 * in the UI panels, in the project file's schema and in docs/parameters.md (generated).
 * A parameter is added when the feature that reads it lands, never before.
 */
export const PARAMS = [
  {
    key: 'system.backend', flag: 'backend', type: 'enum', choices: BACKENDS, default: 'auto',
    group: 'GPU', label: 'Backend', commands: ['*'], env: 'ARGONAUT_BACKEND',
    help: "GPU API: 'auto' picks the platform's native one (Vulkan, Metal, D3D12) and falls back to OpenGL on Mesa llvmpipe (CPU).",
  },
  {
    key: 'system.adapter', flag: 'adapter', type: 'string', default: '',
    group: 'GPU', label: 'Adapter', commands: ['*'], env: 'ARGONAUT_ADAPTER',
    help: 'Use the adapter whose name contains this text (case-insensitive), e.g. "nvidia" or "llvmpipe".',
  },
  {
    key: 'system.kernelVariant', flag: 'kernel-variant', type: 'enum', choices: ['auto', 'subgroup', 'portable'], default: 'auto',
    group: 'GPU', label: 'Kernel variant', commands: ['*'], env: 'ARGONAUT_KERNEL_VARIANT', advanced: true,
    help: "Capability variant of the kernels: 'subgroup' needs the subgroups feature; 'portable' runs everywhere. 'auto' picks the fastest the device supports.",
  },
  {
    key: 'system.profile', flag: 'profile', type: 'bool', default: false,
    group: 'GPU', label: 'Profile kernels', commands: ['*'], env: 'ARGONAUT_PROFILE', advanced: true,
    help: 'Time every kernel with GPU timestamps (one compute pass per kernel) and print a per-kernel table. Costs nothing when off.',
  },
] as const satisfies readonly ParamDef[];

export type ParamKey = (typeof PARAMS)[number]['key'];

const byKey = new Map<string, ParamDef>(PARAMS.map((p) => [p.key, p]));
const byFlag = new Map<string, ParamDef>(PARAMS.map((p) => [p.flag, p]));

export function getParam(key: string): ParamDef | undefined {
  return byKey.get(key);
}

export function getParamByFlag(flag: string): ParamDef | undefined {
  return byFlag.get(flag);
}

/** Parameters a CLI command accepts, in table order. */
export function paramsForCommand(command: string): ParamDef[] {
  return (PARAMS as readonly ParamDef[]).filter((p) => p.commands.includes('*') || p.commands.includes(command));
}

export function allParams(): readonly ParamDef[] {
  return PARAMS;
}
