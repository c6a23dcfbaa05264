/**
 * The Adam groups of a splat set with each parameter as its own "gradient": what densifier and
 * relocation tests hand the refine (which moves parameters and moments, never reads gradients).
 * The trainer's own groups, with real gradients, are Model's (main/engine/train/model.ts).
 */
import type { Adam, AdamGroup, MomentsPrecision } from '../../main/engine/train/adam.js';
import type { GpuSplats } from '../../main/engine/render/gpu-splats.js';

export type SplatGroups = Record<'means' | 'logScales' | 'quats' | 'opacityLogits' | 'sh', AdamGroup>;

/** `shStride`: floats per splat of the SH group (3 per coefficient); SH planar at the splats' capacity. */
export function parameterGroups(adam: Adam, splats: GpuSplats, options: { shStride?: number; precision?: MomentsPrecision } = {}): SplatGroups {
  const c = splats.countBuffer;
  return {
    means: adam.createGroup('means', splats.means, splats.means, c, 3, 3),
    logScales: adam.createGroup('logScales', splats.logScales, splats.logScales, c, 3, 3),
    quats: adam.createGroup('quats', splats.quats, splats.quats, c, 4, 4),
    opacityLogits: adam.createGroup('opacityLogits', splats.opacityLogits, splats.opacityLogits, c, 1, 1),
    sh: adam.createGroup('sh', splats.sh, splats.sh, c, options.shStride ?? 3, 3, undefined, splats.capacity, options.precision),
  };
}
