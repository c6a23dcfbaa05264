import { describe, expect, it } from 'vitest';
import { evaluate, typeStride, usedBindings, workgroupMemoryBytes } from '../../../../main/engine/gpu/wgsl-analysis.js';
import { KernelRegistry } from '../../../../main/engine/gpu/kernels.js';

describe('WGSL static analysis', () => {
  it('sizes types and constant expressions', () => {
    expect(evaluate('WG * ITEMS + 2u', { WG: 256, ITEMS: 4 })).toBe(1026);
    expect(evaluate('(WG / 4u) * 3', { WG: 256 })).toBe(192);
    expect(typeStride('array<vec3f, 10>', {})).toBe(160);
    expect(typeStride('array<atomic<u32>, BINS>', { BINS: 256 })).toBe(1024);
    expect(typeStride('vec2<f32>', {})).toBe(8);
  });

  it('counts only the workgroup memory an entry point reaches', () => {
    const src = `override WG: u32 = 64u;
var<workgroup> a: array<f32, WG>;
var<workgroup> b: array<vec4f, WG * 2u>;
fn helper() { b[0] = vec4f(0.0); }
@compute @workgroup_size(WG) fn uses_a() { a[0] = 1.0; }
@compute @workgroup_size(WG) fn uses_both() { a[0] = 1.0; helper(); }`;
    expect(workgroupMemoryBytes(src, 'uses_a')).toBe(256);
    expect(workgroupMemoryBytes(src, 'uses_both')).toBe(256 + 2048);
    expect(workgroupMemoryBytes(src, 'uses_both', { WG: 32 })).toBe(128 + 1024);
  });

  it('sees that the rasterizer forward does not pay for the backward partials', () => {
    const reg = new KernelRegistry({} as GPUDevice, 'subgroup');
    const src = reg.source('rasterize', 'subgroup');
    const forward = workgroupMemoryBytes(src, 'rasterize_forward');
    const backward = workgroupMemoryBytes(src, 'rasterize_backward', { BATCH_B: 32, MAX_SUBGROUPS: 8 });
    const partials = 8 * 32 * 3 * 16;
    expect(backward).toBeGreaterThanOrEqual(partials);
    expect(forward).toBeLessThan(partials); // the forward allocates none of the backward's partials
    // and the cas reduction's accumulators scale with its batch, without per-subgroup copies
    const cas = workgroupMemoryBytes(src, 'rasterize_backward_cas', { BATCH_CAS: 128 });
    expect(cas).toBeLessThan(backward + 128 * 48);
  });

  it('lists the bindings an entry point reaches, as an automatic layout holds them', () => {
    const src = `@group(0) @binding(0) var<uniform> u: vec4f;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> b: array<f32>;
@group(1) @binding(0) var<storage, read> c: array<f32>;
fn helper() { b[0] = a[0]; }
@compute @workgroup_size(1) fn only_u() { _ = u; }
@compute @workgroup_size(1) fn through_helper() { _ = u; helper(); _ = c[0]; }`;
    expect([...usedBindings(src, 'only_u')]).toEqual([0]);
    expect([...usedBindings(src, 'through_helper')].sort()).toEqual([0, 1, 2]);
    expect([...usedBindings(src, 'through_helper', 1)]).toEqual([0]);
    expect(() => usedBindings(src, 'missing')).toThrow(/no entry point/);
  });

  it("sees that the rasterizer's 'cas' backward binds a subset of the partials backward's bindings, without the normals", () => {
    const src = new KernelRegistry({} as GPUDevice, 'subgroup').source('rasterize', 'subgroup');
    const partials = usedBindings(src, 'rasterize_backward');
    const cas = usedBindings(src, 'rasterize_backward_cas');
    // rank_normal (18) feeds only the normals output: binding it to the 'cas' pipeline is a
    // validation error that invalidates the whole submit (seen on the H200)
    expect(partials.has(18)).toBe(true);
    expect(cas.has(18)).toBe(false);
    for (const b of cas) expect(partials.has(b)).toBe(true);
    for (const core of [0, 1, 2, 12, 15]) expect(cas.has(core)).toBe(true);
  });
});
