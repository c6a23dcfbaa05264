import { describe, expect, it } from 'vitest';
import { UniformStruct } from '../../../../main/engine/gpu/uniforms.js';

/**
 * Every struct a host packs, with the offsets WGSL's layout rules give it (worked out by hand
 * from the declarations: scalars align to 4, vec2 to 8, vec3 and vec4 to 16 with vec3 12 bytes
 * long; a struct's size rounds up to its largest alignment). An independent statement of the
 * layout, so a reflection that got vec3 padding or alignment wrong fails here.
 */
const LAYOUTS: readonly { kernel: string; struct: string; size: number; offsets: Record<string, number> }[] = [
  {
    kernel: 'splat-common',
    struct: 'Camera',
    size: 144,
    offsets: { r0: 0, r1: 16, r2: 32, position: 48, background: 64, focal: 80, principal: 88, size: 96, tiles: 104, near: 112, eps2d: 116, sh_degree: 120, sh_coeffs: 124, antialiased: 128, count_index: 132, sh_plane: 136, _pad1: 140 },
  },
  {
    kernel: 'densify',
    struct: 'DensifyParams',
    size: 80,
    offsets: Object.fromEntries(['count_index', 'width', 'height', 'grow_grad2d', 'grow_scale3d', 'prune_opacity', 'prune_scale3d', 'grow', 'stride', 'mode', 'seed', 'step', 'capacity', 'opacity_logit_max', 'plane', 'lane_first', 'moment_shift', 'growth_fraction', 'budget_want', 'moment_plane'].map((name, i) => [name, 4 * i])),
  },
  {
    kernel: 'mcmc',
    struct: 'McmcParams',
    size: 64,
    offsets: Object.fromEntries(['count_index', 'cap', 'min_opacity', 'seed', 'step', 'round', 'quant', 'noise_scale', 'stride', 'plane', 'opacity_reg', 'scale_reg', 'capacity', 'moment_shift', 'moment_plane', '_pad2'].map((name, i) => [name, 4 * i])),
  },
  {
    kernel: 'adam',
    struct: 'AdamParams',
    size: 80,
    offsets: Object.fromEntries(['lr_head', 'lr_tail', 'beta1', 'beta2', 'epsilon', 'bias1', 'bias2', 'stride', 'head', 'count_index', 'group_index', 'plane', 'moment_shift', 'step', 'lane_end', 'sparse', 'moment_plane', '_pad0', '_pad1', '_pad2'].map((name, i) => [name, 4 * i])),
  },
  {
    kernel: 'appearance',
    struct: 'AppearanceParams',
    size: 48,
    offsets: { width: 0, height: 4, image_slot: 8, images: 12, tiles_x: 16, tiles_y: 20, tv_x: 24, tv_y: 28, tv_l: 32, _pad0: 36, _pad1: 40, _pad2: 44 },
  },
  { kernel: 'loss', struct: 'LossParams', size: 48, offsets: { width: 0, height: 4, target_offset: 8, tiles_x: 12, l1_values: 16, ssim_values: 20, _pad0: 24, _pad1: 28, background: 32, _pad2: 44 } },
  {
    kernel: 'geometry',
    struct: 'GeometryParams',
    size: 48,
    offsets: { width: 0, height: 4, tiles_x: 8, _pad: 12, fx: 16, fy: 20, cx: 24, cy: 28, lambda_distortion: 32, lambda_normal: 36, _pad1: 40, _pad2: 44 },
  },
  { kernel: 'intersect', struct: 'IntersectParams', size: 32, offsets: { n_index: 0, visible_index: 4, isect_index: 8, overflow_index: 12, isect_capacity: 16, gather_chunk: 20, visible_capacity: 24, visible_needed_index: 28 } },
  { kernel: 'gather', struct: 'GatherParams', size: 16, offsets: { visible_index: 0, isect_capacity: 4, clamped_index: 8, _pad0: 12 } },
  { kernel: 'camera-grads', struct: 'CameraGradParams', size: 16, offsets: { count_index: 0, chunks: 4, _pad0: 8, _pad1: 12 } },
  { kernel: 'scan', struct: 'ScanParams', size: 16, offsets: { level: 0, count_index: 4, total_index: 8, _pad1: 12 } },
  { kernel: 'radix-sort', struct: 'SortParams', size: 16, offsets: { shift: 0, count_index: 4, _pad0: 8, _pad1: 12 } },
  // vec3u after a u32: aligned to 16, and the u32 after it fills the vec3's fourth slot
  { kernel: 'radix-sort', struct: 'SortState', size: 48, offsets: { blocks: 0, count_dispatch: 16, hist_size: 28, _pad: 32 } },
  // vec3f then f32: the scalar packs into the vec3's padding
  { kernel: 'tsdf-common', struct: 'TsdfGrid', size: 32, offsets: { origin: 0, voxel: 12, dims: 16, truncation: 28 } },
  { kernel: 'tsdf-common', struct: 'Slab', size: 16, offsets: { z0: 0, layers: 4, _pad0: 8, _pad1: 12 } },
  { kernel: 'sift-pyramid', struct: 'PyramidParams', size: 32, offsets: { width: 0, height: 4, src_offset: 8, dst_offset: 12, radius: 16, weights_offset: 20, src_width: 24, dog_offset: 28 } },
  { kernel: 'sift-detect', struct: 'DetectParams', size: 48, offsets: { width: 0, height: 4, levels: 8, border: 12, peak_threshold: 16, pre_threshold: 20, edge_ratio: 24, max_offset: 28, capacity: 32, octave: 36, _pad0: 40, _pad1: 44 } },
  { kernel: 'sift-describe', struct: 'DescribeParams', size: 32, offsets: { width: 0, height: 4, first: 8, count: 12, max_orientations: 16, _pad0: 20, _pad1: 24, _pad2: 28 } },
  {
    kernel: 'bundle-common',
    struct: 'BaParams',
    size: 112,
    offsets: Object.fromEntries(
      ['observations', 'points', 'images', 'cameras', 'segments', 'variables', 'mode', 'loss', 'lambda', 'loss_scale', 'pcg_tolerance', 'vec_in', 'vec_out', 'image_info_at', 'camera_info_at', 'obs_image_at', 'obs_point_at', 'point_first_at', 'segment_at', 'seg_obs_at', 'intrinsics_at', 'points_at', 'partials', 'chunks', 'chunk_at', '_pad0', '_pad1', '_pad2'].map((name, i) => [name, 4 * i]),
    ),
  },
  { kernel: 'match-nearest', struct: 'MatchParams', size: 16, offsets: { train_first: 0, train_end: 4, table_first: 8, _pad0: 12 } },
  { kernel: 'tsdf', struct: 'TsdfView', size: 96, offsets: { r0: 0, r1: 16, r2: 32, focal: 48, principal: 56, size: 64, near: 72, alpha_min: 76, carve_alpha: 80, carve_depth: 84, has_alpha: 88, seen_depth: 92 } },
  {
    kernel: 'edit-select',
    struct: 'SelectParams',
    size: 208,
    offsets: { r0: 0, r1: 16, r2: 32, focal: 48, principal: 56, bounds: 64, solid_centre: 80, solid_axis0: 96, solid_axis1: 112, solid_axis2: 128, colour: 144, range: 160, near: 168, count: 172, words: 176, shape: 180, mode: 184, points: 188, bands: 192, band_y0: 196, band_scale: 200, _pad0: 204 },
  },
];

describe('uniform structs packed from their WGSL declaration', () => {
  for (const { kernel, struct, size, offsets } of LAYOUTS) {
    it(`${kernel}.wgsl ${struct}: offsets and size as WGSL lays them out`, () => {
      const layout = UniformStruct.of(kernel, struct);
      expect(layout.size).toBe(size);
      expect(Object.fromEntries(layout.fields.map((f) => [f.name, f.offset]))).toEqual(offsets);
    });
  }

  const grid = UniformStruct.fromSource('struct G { origin: vec3f, voxel: f32, dims: vec3<u32>, level: i32, on: u32, _pad: u32 }', 'G');

  it('writes each field at its offset, little-endian, and leaves padding zero', () => {
    const bytes = grid.pack({ origin: [1.5, -2, 3], voxel: 0.25, dims: [7, 8, 9], level: -3, on: true });
    expect(bytes.byteLength).toBe(48);
    const view = new DataView(bytes);
    expect([0, 4, 8, 12].map((at) => view.getFloat32(at, true))).toEqual([1.5, -2, 3, 0.25]);
    expect([16, 20, 24].map((at) => view.getUint32(at, true))).toEqual([7, 8, 9]);
    expect(view.getInt32(28, true)).toBe(-3);
    expect(view.getUint32(32, true)).toBe(1);
    expect(view.getUint32(36, true)).toBe(0); // _pad
    expect([...new Uint32Array(bytes, 40)]).toEqual([0, 0]); // the struct's trailing padding
  });

  it('names the struct and the field for a missing, unknown or misshapen value', () => {
    const full = { origin: [0, 0, 0], voxel: 1, dims: [1, 1, 1], level: 0, on: 0 };
    const { voxel: _voxel, ...missing } = full;
    expect(() => grid.pack(missing)).toThrow(/G: field voxel is missing \(f32\)/);
    expect(() => grid.pack({ ...full, voxels: 1 })).toThrow(/G: no field voxels/);
    expect(() => grid.pack({ ...full, origin: [0, 0] })).toThrow(/field origin takes 3 value\(s\) \(vec3<f32>\), got 2/);
    expect(() => grid.pack({ ...full, on: -1 })).toThrow(/field on \(u32\) got -1/);
    expect(() => grid.pack({ ...full, on: 2 ** 32 })).toThrow(/field on \(u32\)/);
    expect(() => grid.pack({ ...full, level: 0.5 })).toThrow(/field level \(i32\) got 0.5/);
    expect(() => UniformStruct.of('loss', 'NoSuchParams')).toThrow(/kernels\/loss.wgsl: NoSuchParams: no struct NoSuchParams declared/);
    expect(() => UniformStruct.fromSource('struct M { m: mat3x3f }', 'M')).toThrow(/field m has type mat3x3f; a packed uniform holds only u32, i32, f32 and their vectors/);
  });

  it('reads structs declared in an included file where the kernel sees them', () => {
    // Camera is declared in splat-common.wgsl; rasterize.wgsl includes it (through composite-forward)
    expect(UniformStruct.of('rasterize', 'Camera').fields).toEqual(UniformStruct.of('splat-common', 'Camera').fields);
  });
});
