import { describe, expect, it } from 'vitest';
import { KERNEL_SOURCES } from '../../../../main/engine/gpu/kernel-sources.js';

/** The module-scope functions each kernel source declares (once per name, whatever its #if blocks). */
function declaredFunctions(source: string): Set<string> {
  return new Set([...source.matchAll(/^fn\s+(\w+)\s*\(/gm)].map((m) => m[1]));
}

/** Functions kernels/composite-forward.wgsl calls and every includer defines (its per-sample body). */
const COMPOSITE_HOOKS = ['begin_batch', 'composite_splat', 'end_batch'];

describe('kernel sources', () => {
  it('declare each function in one file: shared math lives in an include, not in copies', () => {
    const files = new Map<string, string[]>();
    for (const [kernel, source] of Object.entries(KERNEL_SOURCES)) {
      for (const name of declaredFunctions(source)) files.set(name, [...(files.get(name) ?? []), kernel]);
    }
    const repeated = Object.fromEntries([...files].filter(([name, where]) => where.length > 1 && !COMPOSITE_HOOKS.includes(name)));
    expect(repeated).toEqual({});
  });

  it('define the compositing hooks exactly where composite-forward is included', () => {
    const includers = Object.keys(KERNEL_SOURCES).filter((k) => /^#include "composite-forward"/m.test(KERNEL_SOURCES[k]));
    expect(includers.sort()).toEqual(['mesh-depth', 'rasterize']);
    for (const hook of COMPOSITE_HOOKS) {
      const definers = Object.keys(KERNEL_SOURCES).filter((k) => declaredFunctions(KERNEL_SOURCES[k]).has(hook));
      expect(definers.sort(), hook).toEqual(includers.sort());
    }
  });
});
