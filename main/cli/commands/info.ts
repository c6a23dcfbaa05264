import type { GpuInfo } from '../../../shared/contract/gpu.js';
import { openGpu } from '../../engine/gpu/context.js';
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
  return lines.filter(Boolean).join('\n');
}

export const infoCommand: CommandSpec = {
  name: 'info',
  summary: 'show the GPU adapter, backend, features and limits the engine would use',
  usage: 'info [--json]',
  options: [JSON_OPTION],
  async run({ out, engineOptions }) {
    const gpu = await openGpu(engineOptions);
    try {
      out.result({ ...gpu.info }, formatGpuInfo(gpu.info));
    } finally {
      gpu.destroy();
    }
  },
};
