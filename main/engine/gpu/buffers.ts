/** Buffer helpers shared by every GPU module. */
import type { CompiledPipeline } from './kernels.js';

export type BufferBinding = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

export const STORAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

export function createStorage(device: GPUDevice, label: string, byteSize: number, extraUsage = 0): GPUBuffer {
  const size = Math.max(16, Math.ceil(byteSize / 16) * 16);
  if (size > device.limits.maxBufferSize) throw new Error(`${label}: ${size} bytes exceeds the device's maxBufferSize (${device.limits.maxBufferSize})`);
  return device.createBuffer({ label, size, usage: STORAGE() | extraUsage });
}

export function createUniform(device: GPUDevice, label: string, byteSize: number): GPUBuffer {
  return device.createBuffer({ label, size: Math.max(16, Math.ceil(byteSize / 16) * 16), usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
}

/** Creates a storage buffer holding `data`. */
export function uploadStorage(device: GPUDevice, label: string, data: ArrayBufferView, extraUsage = 0): GPUBuffer {
  const buffer = createStorage(device, label, data.byteLength, extraUsage);
  device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
  return buffer;
}

/**
 * Binds buffers to bindings 0..n-1 of one group of a pipeline; `null` leaves a binding out (with
 * layout 'auto' a pipeline's group has only the bindings its entry point uses).
 */
export function bindBuffers(device: GPUDevice, pipeline: GPUComputePipeline, buffers: readonly (BufferBinding | null)[], group = 0, label?: string): GPUBindGroup {
  const entries: GPUBindGroupEntry[] = [];
  buffers.forEach((b, binding) => {
    if (b) entries.push({ binding, resource: 'buffer' in b && !(b instanceof GPUBuffer) ? b : { buffer: b as GPUBuffer } });
  });
  return device.createBindGroup({ label, layout: pipeline.getBindGroupLayout(group), entries });
}

/** Copies a GPU buffer range back to the host (test and export paths; never inside a training step). */
export async function readBuffer(device: GPUDevice, source: GPUBuffer, byteSize = source.size, offset = 0): Promise<ArrayBuffer> {
  const size = Math.ceil(byteSize / 4) * 4;
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(source, offset, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const copy = staging.getMappedRange().slice(0, byteSize);
  staging.unmap();
  staging.destroy();
  return copy;
}

/** Fills a buffer with a bit pattern (NaN for floats by default) so unwritten outputs show up. */
export function poisonBuffer(device: GPUDevice, buffer: GPUBuffer, pattern = 0x7fc00001): void {
  const words = new Uint32Array(buffer.size / 4).fill(pattern);
  device.queue.writeBuffer(buffer, 0, words);
}

/**
 * Binds buffers by binding number (group 0 unless given): `{ 0: camera, 3: means, ... }`. Given a
 * compiled kernel pipeline, group 0 binds only the entries its entry point uses (its automatic
 * layout has no others, and binding one is a validation error).
 */
export function bindGroup(device: GPUDevice, pipeline: GPUComputePipeline | CompiledPipeline, entries: Readonly<Record<number, BufferBinding>>, group = 0, label?: string): GPUBindGroup {
  const compiled = 'pipeline' in pipeline ? pipeline : undefined;
  const used = compiled && group === 0 ? compiled.bindings : undefined;
  return device.createBindGroup({
    label,
    layout: (compiled?.pipeline ?? (pipeline as GPUComputePipeline)).getBindGroupLayout(group),
    entries: Object.entries(entries)
      .filter(([binding]) => !used || used.has(Number(binding)))
      .map(([binding, b]) => ({ binding: Number(binding), resource: 'buffer' in b && !(b instanceof GPUBuffer) ? b : { buffer: b as GPUBuffer } })),
  });
}
