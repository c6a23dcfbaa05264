/**
 * The model being trained, on the GPU: parameters, gradients and one Adam group per parameter
 * kind. Capacity is fixed per instance; growing it makes a new one (`resized`) that the old one's
 * values move into. Checkpoints store it in the host's interleaved order, whatever the GPU layout.
 */
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import { rangeOf, readBuffer } from '../gpu/buffers.js';
import { GpuSplatGrads, GpuSplats, shAosToPlanar, shPlanarToAos } from '../render/gpu-splats.js';
import { momentWordsPerSplat, type Adam, type AdamGroup, type MomentsPrecision } from './adam.js';
import { packBf16Planar, unpackBf16Planar } from './bf16-moments.js';
import { SH_ADAM_KERNEL } from './sh-adam.js';

export type GroupName = 'means' | 'logScales' | 'quats' | 'opacityLogits' | 'sh';
/**
 * The model's Adam moments (train.momentsPrecision): all f32; 'bf16' the SH group's bf16 pairs
 * (the others f32); 'bf16-all' every group's (kernels/moments.wgsl; the same stochastic rounding).
 */
export type ModelMomentsPrecision = 'f32' | 'bf16' | 'bf16-all';
/** The parameter groups, by name (densification moves every one of them with its moments). */
export type ModelGroups = Record<GroupName, AdamGroup>;

export class Model {
  readonly grads: GpuSplatGrads;
  readonly groups: ModelGroups;

  constructor(
    readonly splats: GpuSplats,
    adam: Adam,
    ctx: GpuContext,
    readonly momentsPrecision: ModelMomentsPrecision = 'f32',
    /**
     * 'fused' (training): the SH group's step is sh-adam.ts's, fused with its backward, and no SH
     * gradient is stored; 'separate': stored SH gradients and Adam's own step (tests of Adam).
     */
    readonly shStep: 'fused' | 'separate' = 'fused',
  ) {
    const fused = shStep === 'fused';
    const sh: MomentsPrecision = momentsPrecision === 'f32' ? 'f32' : 'bf16';
    const others: MomentsPrecision = momentsPrecision === 'bf16-all' ? 'bf16' : 'f32';
    this.grads = new GpuSplatGrads(ctx, splats.capacity, splats.shCoeffs, 'grads', !fused);
    const c = splats.countBuffer;
    // The creation order gives each group its slot in Adam's non-finite flags.
    this.groups = {
      means: adam.createGroup('means', splats.means, this.grads.means, c, 3, 3, undefined, 0, others),
      logScales: adam.createGroup('logScales', splats.logScales, this.grads.logScales, c, 3, 3, undefined, 0, others),
      quats: adam.createGroup('quats', splats.quats, this.grads.quats, c, 4, 4, undefined, 0, others),
      opacityLogits: adam.createGroup('opacityLogits', splats.opacityLogits, this.grads.opacityLogits, c, 1, 1, undefined, 0, others),
      sh: adam.createGroup('sh', splats.sh, this.grads.sh, c, splats.shCoeffs * 3, 3, undefined, splats.capacity, sh, fused ? SH_ADAM_KERNEL : undefined),
    };
  }

  get capacity(): number {
    return this.splats.capacity;
  }

  /** GPU bytes of parameters, gradients and moments (all of capacity). */
  get bytes(): number {
    const b = this.bytesByPart;
    return b.params + b.grads + Object.values(b.moments).reduce((sum, x) => sum + x, 0);
  }

  /**
   * The same by part, from the buffers' sizes: every group's parameters, every gradient (the
   * screen-space mean2d one included), and each group's moments.
   */
  get bytesByPart(): { params: number; grads: number; moments: Record<GroupName, number> } {
    const groups = Object.values(this.groups);
    const moments = Object.fromEntries(groups.map((g) => [g.name, g.moments.size])) as Record<GroupName, number>;
    return { params: groups.reduce((sum, g) => sum + rangeOf(g.param).size, 0), grads: groups.reduce((sum, g) => sum + rangeOf(g.grad).size, 0) + this.grads.mean2d.size, moments };
  }

  /**
   * The groups whose non-finite counters (Adam.flags: [0] all, [1 + slot] per group) grew past
   * `seen`, as "name count" parts of a warning; `seen` is moved up to the counters.
   */
  nonFiniteSince(flags: Uint32Array, seen: Record<string, number>): string[] {
    const counter = (g: AdamGroup) => flags[1 + (g.index % 7)];
    const groups = Object.values(this.groups);
    const parts = groups.filter((g) => counter(g) > (seen[g.name] ?? 0)).map((g) => `${g.name} ${counter(g) - (seen[g.name] ?? 0)}`);
    for (const g of groups) seen[g.name] = counter(g);
    return parts;
  }

  /**
   * A model of another capacity holding this one's parameters, moments and count: the copies are
   * recorded into `commands` (this model stays valid until they have run).
   */
  resized(commands: GpuCommands, ctx: GpuContext, adam: Adam, capacity: number, splatCount: number): Model {
    const splats = new GpuSplats(ctx, capacity, this.splats.shDegree, splatCount, 'model');
    const next = new Model(splats, adam, ctx, this.momentsPrecision, this.shStep);
    for (const name of Object.keys(this.groups) as GroupName[]) {
      const from = this.groups[name];
      const to = next.groups[name];
      for (const part of ['param', 'm', 'v'] as const) {
        // planar values (SH) or planar moment words (moments.wgsl): each plane moves to its place
        // in the new capacity; interleaved ones as one prefix
        const plane = part === 'param' ? from.plane : from.momentPlane;
        if (plane) {
          const rows = Math.min(plane, part === 'param' ? to.plane : to.momentPlane) * 4;
          const planes = part === 'param' ? from.stride : momentWordsPerSplat(from.stride, from.momentShift);
          for (let j = 0; j < planes; j++) commands.copyBuffer(from[part], j * plane * 4, to[part], j * (part === 'param' ? to.plane : to.momentPlane) * 4, rows);
        } else commands.copyBuffer(from[part], 0, to[part], 0, Math.min(rangeOf(from[part]).size, rangeOf(to[part]).size));
      }
    }
    commands.copyBuffer(this.splats.countBuffer, 0, splats.countBuffer, 0, 16);
    return next;
  }

  /** Parameters and moments of the first `count` splats, one blob per group and part (a GPU sync point). */
  async checkpointBlobs(device: GPUDevice, count: number): Promise<{ name: string; data: Uint8Array }[]> {
    const blobs: { name: string; data: Uint8Array }[] = [];
    for (const [name, g] of Object.entries(this.groups)) {
      const bytes = count * g.stride * 4;
      for (const [part, buffer] of [['param', g.param], ['m', g.m], ['v', g.v]] as const) {
        // stored as f32 in the host's interleaved order, whatever the GPU layout, precision and capacity
        const plane = part === 'param' ? g.plane : g.momentPlane;
        const raw = bytes ? await readBuffer(device, buffer, plane ? rangeOf(buffer).size : bytes) : new ArrayBuffer(0);
        const planar = part !== 'param' && g.momentShift && bytes ? unpackBf16Planar(new Uint32Array(raw), g.stride, plane) : new Float32Array(raw);
        const data: Uint8Array = plane && bytes ? new Uint8Array(shPlanarToAos(planar, count, g.stride, plane).buffer) : new Uint8Array(raw);
        blobs.push({ name: `${name}.${part}`, data });
      }
    }
    return blobs;
  }

  /**
   * Writes the Adam moments of `count` splats back from checkpoint blobs (`blob` checks each one's
   * size): f32 whatever the precision they were trained at, rounded here where this model keeps bf16.
   */
  restoreMoments(queue: GPUQueue, count: number, blob: (name: string, floats: number) => Float32Array): void {
    for (const [name, g] of Object.entries(this.groups)) {
      const floats = count * g.stride;
      if (!floats) continue;
      for (const part of ['m', 'v'] as const) {
        const values = blob(`${name}.${part}`, floats);
        const planar = g.momentPlane ? shAosToPlanar(values, count, g.stride, g.momentPlane) : values;
        const data = g.momentShift ? packBf16Planar(planar, g.stride, g.momentPlane) : planar;
        queue.writeBuffer(g[part].buffer, g[part].offset, data.buffer, data.byteOffset, data.byteLength);
      }
    }
  }

  destroy(): void {
    this.splats.destroy();
    this.grads.destroy();
    for (const g of Object.values(this.groups)) for (const b of [g.moments, g.uniform]) b.destroy();
  }
}
