/**
 * The Adam groups of a splat set with each parameter as its own "gradient": what densifier and
 * relocation tests hand the refine (which moves parameters and moments, never reads gradients).
 * The trainer's own groups, with real gradients, are Model's (main/engine/train/model.ts).
 */
import { readBuffer } from '../../main/engine/gpu/buffers.js';
import type { Adam, AdamGroup } from '../../main/engine/train/adam.js';
import { packBf16Planar, unpackBf16Planar } from '../../main/engine/train/bf16-moments.js';
import type { ModelMomentsPrecision } from '../../main/engine/train/model.js';
import { shPlanarToAos, type GpuSplats } from '../../main/engine/render/gpu-splats.js';

export type SplatGroups = Record<'means' | 'logScales' | 'quats' | 'opacityLogits' | 'sh', AdamGroup>;

/** `shStride`: floats per splat of the SH group (3 per coefficient); SH planar at the splats' capacity. */
export function parameterGroups(adam: Adam, splats: GpuSplats, options: { shStride?: number; precision?: ModelMomentsPrecision } = {}): SplatGroups {
  const c = splats.countBuffer;
  // as Model maps train.momentsPrecision
  const sh = options.precision && options.precision !== 'f32' ? 'bf16' : 'f32';
  const others = options.precision === 'bf16-all' ? 'bf16' : 'f32';
  return {
    means: adam.createGroup('means', splats.means, splats.means, c, 3, 3, undefined, 0, others),
    logScales: adam.createGroup('logScales', splats.logScales, splats.logScales, c, 3, 3, undefined, 0, others),
    quats: adam.createGroup('quats', splats.quats, splats.quats, c, 4, 4, undefined, 0, others),
    opacityLogits: adam.createGroup('opacityLogits', splats.opacityLogits, splats.opacityLogits, c, 1, 1, undefined, 0, others),
    sh: adam.createGroup('sh', splats.sh, splats.sh, c, options.shStride ?? 3, 3, undefined, splats.capacity, sh),
  };
}

/** A group's moments (`part`) of its first `count` splats as f32 values in the host's interleaved order, whatever their layout and precision. */
export async function momentsAos(device: GPUDevice, g: AdamGroup, part: 'm' | 'v', count: number): Promise<Float32Array> {
  const raw = new Uint32Array(await readBuffer(device, g[part], g[part].size));
  if (!g.momentPlane) return new Float32Array(raw.buffer).slice(0, count * g.stride);
  return shPlanarToAos(g.momentShift ? unpackBf16Planar(raw, g.stride, g.momentPlane) : new Float32Array(raw.buffer), count, g.stride, g.momentPlane);
}

/** The words of a group's moments all equal to `value` (every splat of its capacity), in its layout and precision. */
export function filledMoments(g: AdamGroup, value: number): Float32Array | Uint32Array {
  const capacity = g.momentPlane || g.param.size / 4 / g.stride;
  const values = new Float32Array(capacity * g.stride).fill(value);
  return g.momentShift ? packBf16Planar(values, g.stride, g.momentPlane) : values;
}
