import type { BackendChoice } from '../../../shared/contract/gpu.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { existsSync } from 'node:fs';
import { loadDawn } from './dawn.js';

export type ConcreteBackend = Exclude<BackendChoice, 'auto'>;

export interface AdapterChoice {
  /** The Dawn instance: must stay referenced as long as the device lives (GC of it crashes Dawn). */
  instance: GPU;
  adapter: GPUAdapter;
  backend: ConcreteBackend;
  featureLevel: 'core' | 'compatibility';
  name: string;
  software: boolean;
}

/** Native backends in order of preference per platform; OpenGL (Mesa llvmpipe) is the CPU fallback. */
export function backendOrder(platform: NodeJS.Platform, choice: BackendChoice): ConcreteBackend[] {
  if (choice !== 'auto') return [choice];
  switch (platform) {
    case 'darwin':
      return ['metal'];
    case 'win32':
      return ['d3d12', 'vulkan'];
    default:
      return ['vulkan', 'opengl'];
  }
}

const SOFTWARE_NAMES = /llvmpipe|lavapipe|swiftshader|softpipe|microsoft basic render|warp/i;

export function adapterName(info: GPUAdapterInfo): string {
  return [info.device, info.description, info.vendor].find((s) => s && s.trim())?.trim() ?? 'unknown adapter';
}

function isGlBackend(backend: ConcreteBackend) {
  return backend === 'opengl' || backend === 'opengles';
}

export interface ChooseAdapterOptions {
  backend?: BackendChoice;
  /** Case-insensitive substring of the adapter's name. */
  adapter?: string;
  /** Extra Dawn instance flags (toggles) for a backend, e.g. for profiling. */
  dawnFlags?: string[] | ((backend: ConcreteBackend) => string[]);
  platform?: NodeJS.Platform;
}

/**
 * Picks the adapter: the platform's native backend with high-performance preference first, then
 * the OpenGL backend in compatibility mode (Mesa llvmpipe on machines without a GPU; needs
 * EGL_PLATFORM=surfaceless, which we set when it is unset). Throws `no_gpu` naming every backend
 * tried and what to install.
 */
export async function chooseAdapter(options: ChooseAdapterOptions = {}): Promise<AdapterChoice> {
  const dawn = await loadDawn();
  const platform = options.platform ?? process.platform;
  const tried: string[] = [];
  const order = backendOrder(platform, options.backend ?? 'auto');
  let softwareFallback: AdapterChoice | undefined;
  for (const backend of order) {
    if (isGlBackend(backend) && platform === 'linux' && !process.env.EGL_PLATFORM) process.env.EGL_PLATFORM = 'surfaceless';
    if (backend === 'vulkan' && platform === 'linux' && !hasVulkanLoader()) {
      tried.push('vulkan: no Vulkan loader (libvulkan.so.1) installed');
      continue;
    }
    const extra = typeof options.dawnFlags === 'function' ? options.dawnFlags(backend) : (options.dawnFlags ?? []);
    const flags = [`backend=${backend}`, ...extra];
    if (options.adapter) flags.push(`adapter=${options.adapter}`);
    const featureLevel: 'core' | 'compatibility' = isGlBackend(backend) ? 'compatibility' : 'core';
    let adapter: GPUAdapter | null = null;
    let gpu: GPU;
    try {
      gpu = dawn.create(flags);
      adapter = await gpu.requestAdapter({ powerPreference: 'high-performance', featureLevel } as GPURequestAdapterOptions);
    } catch (error) {
      tried.push(`${backend}: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    if (!adapter) {
      tried.push(`${backend}: no adapter`);
      continue;
    }
    const name = adapterName(adapter.info);
    if (options.adapter && !name.toLowerCase().includes(options.adapter.toLowerCase())) {
      tried.push(`${backend}: adapter "${name}" does not match "${options.adapter}"`);
      continue;
    }
    const found: AdapterChoice = { instance: gpu, adapter, backend, featureLevel, name, software: SOFTWARE_NAMES.test(name) };
    // A software Vulkan (lavapipe) when "auto" still has the OpenGL fallback to try: the tested
    // CPU path is Dawn's OpenGL backend on llvmpipe; keep lavapipe only if nothing else works.
    if (found.software && (options.backend ?? 'auto') === 'auto' && !options.adapter && backend !== order.at(-1)) {
      softwareFallback ??= found;
      tried.push(`${backend}: ${name} is a software adapter; trying the next backend`);
      continue;
    }
    return found;
  }
  if (softwareFallback) return softwareFallback;
  throw new ArgonautError('no_gpu', noGpuMessage(platform, tried), { tried });
}

export function noGpuMessage(platform: NodeJS.Platform, tried: string[]): string {
  const install =
    platform === 'linux'
      ? 'Install your GPU vendor\'s Vulkan driver (e.g. nvidia-driver, mesa-vulkan-drivers), or for the CPU fallback Mesa\'s EGL/GL: sudo apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri'
      : platform === 'win32'
        ? 'Install or update your GPU driver (D3D12 or Vulkan).'
        : 'macOS 13 or newer with Metal is required.';
  return `No usable GPU adapter (tried ${tried.join('; ') || 'nothing'}). ${install}`;
}

/** Whether the Vulkan loader is installed (Dawn prints a stack trace to stderr when it is not). */
export function hasVulkanLoader(): boolean {
  const dirs = [
    ...(process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
    '/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/lib/x86_64-linux-gnu', '/lib64', '/usr/local/lib',
  ];
  return dirs.some((dir) => existsSync(`${dir}/libvulkan.so.1`));
}
