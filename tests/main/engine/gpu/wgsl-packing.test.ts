import { describe, expect, it } from 'vitest';
import { KERNEL_SOURCES } from '../../../../main/engine/gpu/kernel-sources';
import { KernelRegistry } from '../../../../main/engine/gpu/kernels';
import { preprocessWgsl } from '../../../../main/engine/gpu/wgsl';
import { usedBindings } from '../../../../main/engine/gpu/wgsl-analysis';
import { needsPacking, packDeclarations, packSource } from '../../../../main/engine/gpu/wgsl-packing';

/** WebGPU's guaranteed storage buffers per shader stage. */
const WEBGPU_DEFAULT_STORAGE_BUFFERS = 8;

function entryPoints(source: string): string[] {
  return [...source.matchAll(/@compute[^f]*fn\s+(\w+)/g)].map((m) => m[1]);
}

describe('packing every kernel', () => {
  for (const variant of ['portable', 'subgroup'] as const) {
    for (const kernel of Object.keys(KERNEL_SOURCES)) {
      const source = preprocessWgsl(kernel, KERNEL_SOURCES, KernelRegistry.definesFor(variant));
      for (const entry of entryPoints(source)) {
        it(`${kernel}:${entry} (${variant}) fits WebGPU's 8 storage buffers, packed where it must be`, () => {
          const decision = needsPacking(source, entry, WEBGPU_DEFAULT_STORAGE_BUFFERS);
          const final = decision.packed ? packSource(source, entry).source : source;
          expect(usedBindings(final, entry, 0, 'storage').size).toBeLessThanOrEqual(WEBGPU_DEFAULT_STORAGE_BUFFERS);
        });
      }
    }
  }
});

describe('packSource', () => {
  const source = [
    '@group(0) @binding(0) var<uniform> n: u32;',
    '@group(0) @binding(1) var<storage, read> a: array<vec4f>; // arena pixels.image',
    '@group(0) @binding(2) var<storage, read_write> b: array<vec4f>; // arena pixels.geometry',
    '@group(0) @binding(3) var<storage, read> c: array<f32>; // arena moments.v second',
    '@compute @workgroup_size(1) fn main() {',
    '  b[select(0u, 1u, a[1u].x > 0.0)] = a[u32(c[2u])] + vec4f(c[0u]);',
    '}',
  ];
  it('reads the annotations, by pack', () => {
    const packs = packDeclarations(source.join('\n'));
    expect([...packs.keys()]).toEqual(['pixels', 'second']);
    expect(packs.get('pixels')!.members.map((m) => [m.name, m.slot, m.access])).toEqual([['a', 0, 'read'], ['b', 2, 'read_write']]);
  });
  it('binds each pack once, at its lowest member binding, read_write if any member is, and indexes members at their offsets', () => {
    const { source: packed, packs } = packSource(source.join('\n'));
    expect(packs.map((p) => [p.name, p.binding, p.layoutBinding, p.memberBindings])).toEqual([['pixels', 1, 900, [1, 2]], ['second', 3, 901, [3]]]);
    expect(packed).toContain('@group(0) @binding(1) var<storage, read_write> pack_pixels: array<vec4f>;');
    expect(packed).toContain('var<uniform> pack_pixels_at: array<vec4u, 1>;');
    expect(packed).not.toMatch(/var<storage[^>]*>\s+[abc]:/);
    // nested indexing rewritten too; each index kept whole in parentheses
    expect(packed).toContain(
      '  pack_pixels[pack_pixels_at[0u].z + (select(0u, 1u, pack_pixels[pack_pixels_at[0u].x + (1u)].x > 0.0))] = pack_pixels[pack_pixels_at[0u].x + (u32(pack_second[pack_second_at[0u].y + (2u)]))] + vec4f(pack_second[pack_second_at[0u].y + (0u)]);',
    );
  });
  it('packs an entry point that reads one member of a pack and writes another, whatever the limit', () => {
    expect(needsPacking(source.join('\n'), 'main', 16)).toMatchObject({ packed: true, reason: 'reads and writes members of pixels' });
  });
  it('refuses a member used other than by indexing, and an annotation that names no member', () => {
    expect(() => packSource(source.concat('fn f() -> u32 { return arrayLength(&a); }').join('\n'))).toThrow(/a is used other than by indexing/);
    expect(() => packDeclarations('@group(0) @binding(1) var<storage, read> a: array<vec4f>; // arena pixels.colour')).toThrow(/arena pixels has no member "colour"/);
    expect(() => packDeclarations('@group(0) @binding(1) var<storage, read> a: array<f32>; // arena pixels.image')).toThrow(/a is array<f32> but arena pixels holds vec4f/);
  });
});
