import type { GpuInfo, KernelPlan } from '../../../shared/contract/gpu.js';
import { openGpu } from '../../engine/gpu/context.js';
import { formatBytes } from '../../engine/gpu/memory.js';
import { describeKernels } from '../../engine/render/kernel-plan.js';
import { TRAINING_BACKWARD } from '../../engine/train/trainer.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';

const KEY_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
];

export function formatGpuInfo(info: GpuInfo): string {
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const lines = [
    `adapter   ${info.adapter.name}${info.adapter.software ? ' (software, CPU)' : ''}`,
    `backend   ${info.backend} (${info.featureLevel})`,
    info.adapter.vendor || info.adapter.architecture ? `vendor    ${[info.adapter.vendor, info.adapter.architecture].filter(Boolean).join(' / ')}` : '',
    info.adapter.description ? `driver    ${info.adapter.description}` : '',
    `features  ${info.features.join(', ') || '(none)'}`,
    `subgroups ${info.features.includes('subgroups') ? `${info.subgroupMinSize}..${info.subgroupMaxSize}` : 'no'}`,
    `kernels   ${info.variant} variant${info.variantForced ? ' (forced)' : ''}`,
    'limits',
    ...KEY_LIMITS.map((k) => `  ${k.padEnd(36)} ${k.includes('Size') && info.limits[k] >= 2 ** 20 ? mib(info.limits[k]) : info.limits[k]}`),
  ];
  return [...lines.filter(Boolean), ...(info.kernels ? formatKernelPlan(info.kernels) : [])].join('\n');
}

/** One line per kernel family: variant, constants, needs against the limits, and why. */
export function formatKernelPlan(plan: KernelPlan): string[] {
  return [
    'kernel families (variant, constants; workgroup storage, storage buffers, invocations needed)',
    ...plan.map((f) => {
      const constants = Object.entries(f.constants).map(([k, v]) => `${k} ${v}`).join(', ');
      const needs = `${f.needs.workgroupStorageBytes.toLocaleString('en-US')} B, <= ${f.needs.storageBuffers} buffers, ${f.needs.invocations} threads`;
      return `  ${f.family.padEnd(27)} ${f.variant}${constants ? ` (${constants})` : ''}; ${needs}${f.fits ? '' : `: DOES NOT FIT (${f.overLimits})`}\n  ${''.padEnd(27)} ${f.reason}`;
    }),
  ];
}

export const infoCommand: CommandSpec = {
  name: 'info',
  summary: 'show the GPU adapter, backend, features and limits the engine would use',
  usage: 'info [--json]',
  options: [JSON_OPTION],
  async run({ out, engineOptions }) {
    const gpu = await openGpu(engineOptions);
    try {
      const info: GpuInfo = { ...gpu.info, kernels: describeKernels(gpu, TRAINING_BACKWARD) };
      // the GPU memory ledger's budget (gpu/memory.ts): null where there is no total of ours
      const budget = gpu.memory.budget;
      const memory = { gpu_memory_budget_bytes: Number.isFinite(budget.totalBytes) ? budget.totalBytes : null, gpu_memory_budget_source: budget.source };
      const line = `memory    budget ${Number.isFinite(budget.totalBytes) ? `${formatBytes(budget.totalBytes)} (${budget.source === 'configured' ? '--gpu-memory-budget' : 'half the system memory'})` : 'none of ours (Dawn cannot tell; the driver refuses at growth): --gpu-memory-budget sets one'}`;
      out.result({ ...info, ...memory }, `${formatGpuInfo(info)}\n${line}`);
    } finally {
      gpu.destroy();
    }
  },
};
