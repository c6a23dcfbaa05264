/** Buffer helpers shared by every GPU module. */
import type { CompiledPipeline } from './kernels.js';

export type BufferBinding = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

/** What a packed binding needs of an arena (arena.ts's GpuArena). */
export interface ArenaBinding {
  readonly buffer: GPUBuffer;
  /** Its members' element offsets (a uniform). */
  readonly layout: GPUBuffer;
  readonly size: number;
  readonly label: string;
}

/** One member's range of an arena: binds like a buffer (`{ buffer, offset, size }`). */
export interface GpuRegion<A extends ArenaBinding = ArenaBinding> {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  readonly size: number;
  readonly arena: A;
}

export function isRegion(value: unknown): value is GpuRegion {
  return typeof value === 'object' && value !== null && 'arena' in value;
}

/** A whole buffer or an arena member's region: what the helpers below read, write and clear. */
export type GpuRange = GPUBuffer | GpuRegion;

/** Where a range lies in its buffer. */
export function rangeOf(range: GpuRange): { buffer: GPUBuffer; offset: number; size: number } {
  return isRegion(range) ? regionBinding(range) : { buffer: range, offset: 0, size: range.size };
}

/** A region's range, for bind group entries and copies (without the arena back-reference). */
export function regionBinding(region: GpuRegion): { buffer: GPUBuffer; offset: number; size: number } {
  return { buffer: region.buffer, offset: region.offset, size: region.size };
}

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
    if (b) entries.push({ binding, resource: isRegion(b) ? regionBinding(b) : 'buffer' in b && !(b instanceof GPUBuffer) ? b : { buffer: b as GPUBuffer } });
  });
  return device.createBindGroup({ label, layout: pipeline.getBindGroupLayout(group), entries });
}

/**
 * Copies a GPU buffer or region back to the host (test and export paths; never inside a training
 * step); `offset` is within the range.
 */
export async function readBuffer(device: GPUDevice, source: GpuRange, byteSize = rangeOf(source).size, offset = 0): Promise<ArrayBuffer> {
  const range = rangeOf(source);
  const size = Math.ceil(byteSize / 4) * 4;
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(range.buffer, range.offset + offset, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const copy = staging.getMappedRange().slice(0, byteSize);
  staging.unmap();
  staging.destroy();
  return copy;
}

/** Fills a buffer with a bit pattern (NaN for floats by default) so unwritten outputs show up. */
export function poisonBuffer(device: GPUDevice, target: GpuRange, pattern = 0x7fc00001): void {
  const { buffer, offset, size } = rangeOf(target);
  const words = new Uint32Array(size / 4).fill(pattern);
  device.queue.writeBuffer(buffer, offset, words);
}

/** Writes host data at `offset` within a buffer or region. */
export function writeRange(device: GPUDevice, target: GpuRange, data: ArrayBufferView, offset = 0): void {
  const range = rangeOf(target);
  if (offset + data.byteLength > range.size) throw new Error(`write of ${data.byteLength} bytes at ${offset} overruns a ${range.size}-byte range of ${range.buffer.label}`);
  device.queue.writeBuffer(range.buffer, range.offset + offset, data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Binds buffers by binding number (group 0 unless given): `{ 0: camera, 3: means, ... }`. Given a
 * compiled kernel pipeline, group 0 binds only the entries its entry point uses (its automatic
 * layout has no others, and binding one is a validation error).
 */
export function bindGroup(device: GPUDevice, pipeline: GPUComputePipeline | CompiledPipeline, entries: Readonly<Record<number, BufferBinding>>, group = 0, label?: string): GPUBindGroup {
  const compiled = 'pipeline' in pipeline ? pipeline : undefined;
  const used = compiled && group === 0 ? compiled.bindings : undefined;
  const resources = new Map<number, BufferBinding>(Object.entries(entries).map(([binding, b]) => [Number(binding), b]));
  // A packed pipeline binds each arena whole, with its offsets uniform, where its members were.
  for (const pack of group === 0 ? (compiled?.packs ?? []) : []) {
    const regions = pack.memberBindings.map((b) => resources.get(b)).filter((r) => r !== undefined);
    if (!regions.length) continue;
    const arena = regions.map((r) => (isRegion(r) ? r.arena : undefined));
    if (arena.some((a) => a !== arena[0]) || !arena[0]) throw new Error(`${compiled!.label}: the members of pack ${pack.name} must be regions of one ${pack.kind} arena`);
    // The pack binds the arena from its start to the end of the last member it is given, not
    // whole: the members' offsets stay the arena's, and an entry point that leaves out a large
    // last member (the splat parameters' SH, 192 of 236 B a splat) binds far less than the arena
    // (MCMC's inject_noise at 10M splats: 440 MB, where the arena's 2.36 GB is over a 2 GiB limit).
    const end = Math.max(...regions.map((r) => (isRegion(r) ? r.offset + r.size : 0)));
    const limit = device.limits.maxStorageBufferBindingSize;
    if (end > limit) throw new Error(`${compiled!.label}: arena ${arena[0].label} is bound over ${end} bytes, over this device's ${limit}-byte binding limit (a smaller capacity fits)`);
    for (const b of pack.memberBindings) resources.delete(b);
    resources.set(pack.binding, { buffer: arena[0].buffer, offset: 0, size: end });
    resources.set(pack.layoutBinding, arena[0].layout);
  }
  return device.createBindGroup({
    label,
    layout: (compiled?.pipeline ?? (pipeline as GPUComputePipeline)).getBindGroupLayout(group),
    entries: [...resources]
      .filter(([binding]) => !used || used.has(binding))
      .map(([binding, b]) => ({ binding, resource: isRegion(b) ? regionBinding(b) : 'buffer' in b && !(b instanceof GPUBuffer) ? b : { buffer: b as GPUBuffer } })),
  });
}
