/**
 * The kinds of arena (arena.ts) and their members, declared once: the host allocations and the
 * WGSL annotations (`// arena splat_params.means`, wgsl-packing.ts) both name them, and the packer
 * takes a member's slot in the offsets uniform from its position in the list. Data only, so the
 * packer and the allocator both import it without importing each other.
 */
export interface ArenaKind {
  /** WGSL element type of every member (a packed binding is one `array<element>`). */
  readonly element: 'f32' | 'u32' | 'vec2u' | 'vec4f';
  readonly members: readonly string[];
}

export const ARENA_KINDS = {
  /** The trained splat parameters (GpuSplats); SH planar. */
  splat_params: { element: 'f32', members: ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] },
  /** Their gradients (GpuSplatGrads). */
  splat_grads: { element: 'f32', members: ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] },
  /** Adam's moments of one parameter group. */
  moments: { element: 'f32', members: ['m', 'v'] },
  /** Per splat, written by the projection: conic + opacity, colour + depth, camera-space normal. */
  projected: { element: 'vec4f', members: ['conicOpacity', 'colorDepth', 'normal'] },
  /** Per splat: screen mean (f32 bits) and tile rectangle. */
  projected_xy_rect: { element: 'vec2u', members: ['xy', 'rect'] },
  /** The same per depth rank (gather_sorted's output). */
  ranked: { element: 'vec4f', members: ['conicOpacity', 'colorDepth', 'normal'] },
  ranked_xy_rect: { element: 'vec2u', members: ['xy', 'rect'] },
  /** Per rank: intersections; per splat: its rank. */
  rank_counts: { element: 'u32', members: ['count', 'rankOfSplat'] },
  /** Per tile-sorted intersection: its depth rank and its emit index. */
  tile_order: { element: 'u32', members: ['rank', 'emit'] },
  /** Per intersection: the backward's gradient records. */
  isect_grads: { element: 'vec4f', members: ['g0', 'g1', 'g2', 'g3'] },
  /** Per pixel, the forward's vec4 outputs. */
  pixels: { element: 'vec4f', members: ['image', 'normals', 'geometry'] },
  /** Per pixel, the backward's inputs: dL/d image, dL/d (depth, median, distortion), dL/d normals. */
  pixel_grads: { element: 'vec4f', members: ['image', 'aux', 'normals'] },
} as const satisfies Record<string, ArenaKind>;

export type ArenaKindName = keyof typeof ARENA_KINDS;
export type ArenaMember<K extends ArenaKindName> = (typeof ARENA_KINDS)[K]['members'][number];

export const ELEMENT_BYTES: Readonly<Record<ArenaKind['element'], number>> = { f32: 4, u32: 4, vec2u: 8, vec4f: 16 };
