/**
 * Arenas: several arrays of one element type in one GPUBuffer, each in its own aligned region.
 *
 * Why: WebGPU guarantees only 8 storage buffers per shader stage (SwiftShader has 12, the H200 16)
 * and the rasterizer's kernels bind up to 16. Arrays that kernels use together live in one arena;
 * where a device has bindings enough, each region binds as its own buffer (offset + size, so the
 * kernels are exactly today's); where it has not, the kernel is rewritten to bind the whole arena
 * once (wgsl-packing.ts) and index it at each member's offset, which a small uniform per arena
 * holds. The element offsets are in the uniform rather than in the source so a capacity change
 * needs no new pipeline.
 *
 * The kinds of arena and their members are declared once, in arena-kinds.ts.
 */
import { ARENA_KINDS, ELEMENT_BYTES, type ArenaKind, type ArenaKindName, type ArenaMember } from './arena-kinds.js';
import { createStorage, createUniform, type GpuRegion } from './buffers.js';

export { ARENA_KINDS, type ArenaKind, type ArenaKindName, type ArenaMember };

/** Least alignment of a region's start, in bytes (GPU cache lines are 128 B; WebGPU's default offset alignment is 256). */
export const REGION_ALIGNMENT = 256;

export class GpuArena<K extends ArenaKindName = ArenaKindName> {
  readonly buffer: GPUBuffer;
  /** u32 element offset of each member, four to a vec4 (the packed kernels' `pack_*_at`). */
  readonly layout: GPUBuffer;
  readonly regions: Readonly<Record<ArenaMember<K>, GpuRegion<GpuArena<K>>>>;

  /**
   * `bytes`: each member's size (0 for a member a configuration does not use: it gets a 16-byte
   * placeholder, since a binding cannot be empty). Regions start at the device's storage offset
   * alignment, so each can bind on its own.
   */
  constructor(device: GPUDevice, readonly kind: K, readonly label: string, bytes: Readonly<Record<ArenaMember<K>, number>>) {
    const spec: ArenaKind = ARENA_KINDS[kind];
    const element = ELEMENT_BYTES[spec.element];
    // 256 B at least, whatever the device allows: a region starting mid-cache-line splits every
    // warp's loads over one more line (the H200 allows 16 B, and gather_grads ran 39% slower so).
    const align = Math.max(device.limits.minStorageBufferOffsetAlignment, element, REGION_ALIGNMENT);
    const offsets: number[] = [];
    const sizes: number[] = [];
    let end = 0;
    for (const member of spec.members) {
      const size = Math.max(16, Math.ceil((bytes as Record<string, number>)[member] / element) * element);
      if (!Number.isFinite(size)) throw new Error(`arena ${label}: no size for member ${member}`);
      end = Math.ceil(end / align) * align;
      offsets.push(end);
      sizes.push(size);
      end += size;
    }
    this.buffer = createStorage(device, label, end);
    this.layout = createUniform(device, `${label}.layout`, Math.ceil(spec.members.length / 4) * 16);
    device.queue.writeBuffer(this.layout, 0, new Uint32Array(offsets.map((o) => o / element).concat(new Array((4 - (offsets.length % 4)) % 4).fill(0))));
    const regions: Record<string, GpuRegion<GpuArena<K>>> = {};
    spec.members.forEach((member, i) => {
      regions[member] = { buffer: this.buffer, offset: offsets[i], size: sizes[i], arena: this };
    });
    this.regions = regions as Record<ArenaMember<K>, GpuRegion<GpuArena<K>>>;
  }

  get size(): number {
    return this.buffer.size;
  }

  destroy(): void {
    this.buffer.destroy();
    this.layout.destroy();
  }
}
