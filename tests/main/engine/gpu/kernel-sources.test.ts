import { describe, expect, it } from 'vitest';
import { KERNEL_SOURCES } from '../../../../main/engine/gpu/kernel-sources.js';

/** The module-scope functions each kernel source declares (once per name, whatever its #if blocks). */
function declaredFunctions(source: string): Set<string> {
  return new Set([...source.matchAll(/^fn\s+(\w+)\s*\(/gm)].map((m) => m[1]));
}

/**
 * Functions an include calls and every includer defines: composite-forward's per-sample body, and
 * sh's sink of each coefficient's gradient (the projection stores it, the fused SH Adam applies it).
 */
const HOOKS: Record<string, { hooks: string[]; includers: string[] }> = {
  'composite-forward': { hooks: ['begin_batch', 'composite_splat', 'end_batch'], includers: ['mesh-depth', 'rasterize'] },
  sh: { hooks: ['sh_coeff_grad'], includers: ['project', 'sh-adam'] },
};
const ALL_HOOKS = Object.values(HOOKS).flatMap((h) => h.hooks);

describe('kernel sources', () => {
  it('declare each function in one file: shared math lives in an include, not in copies', () => {
    const files = new Map<string, string[]>();
    for (const [kernel, source] of Object.entries(KERNEL_SOURCES)) {
      for (const name of declaredFunctions(source)) files.set(name, [...(files.get(name) ?? []), kernel]);
    }
    const repeated = Object.fromEntries([...files].filter(([name, where]) => where.length > 1 && !ALL_HOOKS.includes(name)));
    expect(repeated).toEqual({});
  });

  for (const [include, spec] of Object.entries(HOOKS)) {
    it(`define ${include}'s hooks exactly where it is included`, () => {
      const includers = Object.keys(KERNEL_SOURCES).filter((k) => new RegExp(`^#include "${include}"`, 'm').test(KERNEL_SOURCES[k]));
      expect(includers.sort()).toEqual(spec.includers);
      for (const hook of spec.hooks) {
        const definers = Object.keys(KERNEL_SOURCES).filter((k) => declaredFunctions(KERNEL_SOURCES[k]).has(hook));
        expect(definers.sort(), hook).toEqual(includers.sort());
      }
    });
  }
});
