import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/build.js';
import { describeCycle, importCycles, importGraph, importsOf, repositoryImportGraph } from '../helpers/import-graph.js';

// Lint's import-x/no-cycle skips type-only imports; this closes that gap: no circle of any imports.

function graphOf(files: Record<string, string>) {
  return importGraph(Object.keys(files), (file) => files[file]);
}

describe('the import graph', () => {
  it('has no cycle anywhere in the repository, type-only imports included', () => {
    const edges = repositoryImportGraph(repoRoot);
    expect(edges.length).toBeGreaterThan(500);
    expect(importCycles(edges).map((cycle) => describeCycle(cycle, edges))).toEqual([]);
  });

  it('finds a circle of type imports, a longer circle and a self-import, and no circle in a chain', () => {
    const edges = graphOf({
      'a/lock.ts': "import type { Project } from './project.js';\nexport const lock = (p: Project) => p;",
      'a/project.ts': "import { lock } from './lock.js';\nexport class Project {}\nexport const l = lock;",
      'b/x.ts': "export { y } from './y.js';",
      'b/y.ts': "export const y = () => import('./z.js');",
      'b/z.ts': "import { x } from './x.js';\nexport const z = x;",
      'c/self.ts': "import * as me from './self.js';\nexport const s = me;",
      'd/p.ts': "import { q } from './q.js';\nimport { readFile } from 'node:fs';\nexport const p = [q, readFile];",
      'd/q.ts': "import { r } from '../d/r.js';\nexport const q = r;",
      'd/r.ts': 'export const r = 1;',
    });
    expect(importCycles(edges)).toEqual([['a/lock.ts', 'a/project.ts'], ['b/x.ts', 'b/y.ts', 'b/z.ts'], ['c/self.ts']]);
    expect(describeCycle(['a/lock.ts', 'a/project.ts'], edges)).toBe('  a/lock.ts -> a/project.ts (type only)\n  a/project.ts -> a/lock.ts');
  });

  it('reads what a module imports: type-only or not, re-exports, dynamic imports, .vue scripts', () => {
    expect(importsOf('m.ts', "import a, { type B } from './a.js';\nimport { type C, type D } from './c.js';\nimport type E from './e.js';\nexport type { F } from './f.js';\nexport * from './g.js';\nconst h = await import('./h.js');")).toEqual([
      { specifier: './a.js', typeOnly: false },
      { specifier: './c.js', typeOnly: true },
      { specifier: './e.js', typeOnly: true },
      { specifier: './f.js', typeOnly: true },
      { specifier: './g.js', typeOnly: false },
      { specifier: './h.js', typeOnly: false },
    ]);
    expect(importsOf('V.vue', '<template><div /></template>\n<script setup lang="ts">\nimport W from \'./W.vue\';\n</script>')).toEqual([{ specifier: './W.vue', typeOnly: false }]);
  });
});
