import { describe, expect, it } from 'vitest';
import { preprocessWgsl } from '../../../../main/engine/gpu/wgsl.js';

const sources = {
  common: 'fn helper() -> u32 { return 1u; }',
  diag: 'const D = 1;\ndiagnostic(off, subgroup_uniformity);',
  main: ['#include "diag"', '#if SUBGROUPS', 'enable subgroups;', '#endif', '#include "common"', '#include "common"', '#if !SUBGROUPS', 'const PORTABLE = true;', '#else', 'const PORTABLE = false;', '#endif', 'fn main() {}'].join('\n'),
  cycleA: '#include "cycleB"',
  cycleB: '#include "cycleA"',
  bad: '#if A\nx',
};

describe('WGSL preprocessor', () => {
  it('selects capability blocks, hoists enables and includes once', () => {
    const sg = preprocessWgsl('main', sources, { SUBGROUPS: true });
    expect(sg.split('\n').slice(0, 2)).toEqual(['diagnostic(off, subgroup_uniformity);', 'enable subgroups;']);
    expect(sg).toContain('const PORTABLE = false;');
    expect(sg.match(/fn helper/g)).toHaveLength(1);
    const portable = preprocessWgsl('main', sources, { SUBGROUPS: false });
    expect(portable).not.toContain('enable subgroups');
    expect(portable).toContain('const PORTABLE = true;');
  });

  it('keeps line numbers of the main file stable', () => {
    const out = preprocessWgsl('main', { main: '#if X\na\n#endif\nfn f() {}' }, {});
    expect(out.split('\n').indexOf('fn f() {}')).toBe(3);
  });

  it('reports unknown includes, unknown directives and unterminated blocks', () => {
    expect(() => preprocessWgsl('main', { main: '#include "nope"' }, {})).toThrow(/unknown source "nope"/);
    expect(preprocessWgsl('cycleA', sources, {}).trim()).toBe(''); // include-once ends cycles
    expect(() => preprocessWgsl('bad', sources, {})).toThrow(/unterminated #if/);
    expect(() => preprocessWgsl('main', { main: '#pragma x' }, {})).toThrow(/unknown directive #pragma/);
  });
});
