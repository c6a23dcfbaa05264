/**
 * Both capability variants of every kernel through a second WGSL compiler (naga, from wgpu, as
 * WebAssembly). This machine's device has no subgroups, so Dawn never compiles the subgroup
 * variants here; naga catches their type and syntax errors before a GPU run does.
 *
 * Two textual adjustments, for naga only: it does not accept `enable subgroups;` (it has the
 * builtins without the directive), and it refuses subgroup builtins in a multi-dimensional
 * workgroup, which WGSL allows (our 16x16 tile kernels); those are validated as 256x1x1.
 *
 * naga-wasm 30.1.0 (dev only, exact pin, no install script) declares Node >= 24.12; npm only
 * warns, and what we call (parse, validate) runs on our Node 20: this file is the proof, and it
 * fails loudly (the last case) if validation ever stops reporting errors.
 */
import { parseWgsl, validate } from 'naga-wasm';
import { describe, expect, it } from 'vitest';
import { KERNEL_SOURCES } from '../../../../main/engine/gpu/kernel-sources.js';
import { KernelRegistry, type KernelVariant } from '../../../../main/engine/gpu/kernels.js';

/** Module constants the hosts supply (KernelRegistry `consts`). */
const MODULE_CONSTS: Record<string, Record<string, number>> = { 'radix-sort': { ITEMS: 4 } };


function nagaSource(kernel: string, variant: KernelVariant): string {
  const registry = new KernelRegistry(undefined as unknown as GPUDevice, variant);
  return registry
    .source(kernel, variant, MODULE_CONSTS[kernel] ?? {})
    .replace(/^enable subgroups;$/m, '')
    .replaceAll('@workgroup_size(TILE, TILE, 1)', '@workgroup_size(256, 1, 1)');
}

function nagaErrors(source: string): string | undefined {
  try {
    using module = parseWgsl(source);
    using info = validate(module);
    void info;
    return undefined;
  } catch (error) {
    const e = error as { formatted?: string; message?: string };
    return e.formatted ?? e.message ?? String(error);
  }
}

describe('every kernel validates in naga, subgroup and portable variants', () => {
  // Sources without an entry point are only ever included (and validated inside their includers).
  const kernels = Object.keys(KERNEL_SOURCES).filter((k) => /@compute\b/.test(KERNEL_SOURCES[k]));
  for (const variant of ['subgroup', 'portable'] as const) {
    for (const kernel of kernels) {
      it(`${kernel} (${variant})`, () => {
        const source = nagaSource(kernel, variant);
        if (variant === 'subgroup' && /\bsubgroup[A-Z]/.test(KERNEL_SOURCES[kernel])) expect(source).toMatch(/\bsubgroup[A-Z]/);
        expect(nagaErrors(source)).toBeUndefined();
      });
    }
  }

  it('finds the kernels with entry points (the list above is not empty)', () => {
    expect(kernels).toEqual(expect.arrayContaining(['rasterize', 'mesh-depth', 'scan', 'radix-sort', 'intersect']));
  });

  it('reports a broken kernel (the check can fail)', () => {
    const broken = nagaSource('rasterize', 'subgroup').replace('subgroupShuffleXor(select(c, a, b1), h1)', 'subgroupShuffleXor(select(c, a, b1), 1.5)');
    expect(nagaErrors(broken)).toMatch(/error/i);
  });
});
