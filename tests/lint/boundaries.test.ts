import { ESLint } from 'eslint';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/build.js';

// eslint.config.js is plain JavaScript (no types): its layer table, as this test reads it.
const { ENGINE_LAYERS } = (await import(pathToFileURL(path.join(repoRoot, 'eslint.config.js')).href)) as { ENGINE_LAYERS: Record<string, readonly string[]> };

// The boundary rules look at each import alone; the cycle rule (tested below) would read every
// real module these snippets name, seconds of parsing that prove nothing here.
const eslint = new ESLint({ cwd: repoRoot, overrideConfig: { rules: { 'import-x/no-cycle': 'off' } } });

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('process boundaries are lint rules', () => {
  it('keeps electron out of the engine and shared code', async () => {
    expect(await restricted('main/engine/x.ts', "import { app } from 'electron';\nexport const a = app;")).toHaveLength(1);
    expect(await restricted('shared/x.ts', "import { app } from 'electron';\nexport const a = app;")).toHaveLength(1);
    expect(await restricted('main/app/x.ts', "import { app } from 'electron';\nexport const a = app;")).toHaveLength(0);
  });

  it('keeps Node and engine code out of the renderer', async () => {
    expect(await restricted('renderer/src/x.ts', "import fs from 'node:fs';\nexport const a = fs;")).toHaveLength(1);
    expect(await restricted('renderer/src/x.ts', "import fs from 'fs';\nexport const a = fs;")).toHaveLength(1);
    expect(await restricted('renderer/src/x.ts', "import { Engine } from '../../main/engine/engine.js';\nexport const a = Engine;")).toHaveLength(1);
    expect(await restricted('renderer/src/x.ts', "import { contract } from '../../shared/contract/index.js';\nexport const a = contract;")).toHaveLength(0);
  });

  it('keeps shared/ runtime-neutral', async () => {
    expect(await restricted('shared/x.ts', "import path from 'node:path';\nexport const a = path;")).toHaveLength(1);
    expect(await restricted('shared/x.ts', "import { ref } from 'vue';\nexport const a = ref;")).toHaveLength(1);
    expect(await restricted('shared/x.ts', "import { Engine } from '../main/engine/engine.js';\nexport const a = Engine;")).toHaveLength(1);
    expect(await restricted('shared/x.ts', "import { z } from 'zod';\nexport const a = z;")).toHaveLength(0);
  });

  it('keeps the engine independent of the layers above it', async () => {
    expect(await restricted('main/engine/x.ts', "import { runCli } from '../cli/index.js';\nexport const a = runCli;")).toHaveLength(1);
  });
});

describe('the engine is layered (ENGINE_LAYERS in eslint.config.js, docs/architecture.md)', () => {
  const layers = Object.keys(ENGINE_LAYERS);

  it('gives every folder of main/engine a layer, so a new folder cannot go unchecked', () => {
    const folders = readdirSync(path.join(repoRoot, 'main/engine'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.sort()).toEqual([...layers].sort());
  });

  it.each(layers)('main/engine/%s imports the folders below it and no other', async (layer) => {
    const allowed = ENGINE_LAYERS[layer];
    for (const other of layers.filter((l) => l !== layer)) {
      const messages = await restricted(`main/engine/${layer}/x.ts`, `import { y } from '../${other}/y.js';\nexport const x = y;`);
      expect({ other, messages: messages.length }).toEqual({ other, messages: allowed.includes(other) ? 0 : 1 });
    }
    // type imports count too: a layer's types are part of what it depends on
    const refused = layers.find((l) => l !== layer && !allowed.includes(l));
    if (refused) expect(await restricted(`main/engine/${layer}/x.ts`, `import type { Y } from '../${refused}/y.js';\nexport type X = Y;`)).toHaveLength(1);
    // shared/ and the layer's own files stay open; the engine's other rules still hold
    expect(await restricted(`main/engine/${layer}/x.ts`, "import { z } from '../../../shared/project/manifest.js';\nimport { w } from './w.js';\nexport const x = [z, w];")).toHaveLength(0);
    expect(await restricted(`main/engine/${layer}/x.ts`, "import { runCli } from '../../cli/index.js';\nexport const x = runCli;")).toHaveLength(1);
  });

  it('refuses an import from a nested file and through an engine/ path', async () => {
    expect(await restricted('main/engine/gpu/primitives/x.ts', "import { Trainer } from '../../train/trainer.js';\nexport const x = Trainer;")).toEqual([expect.stringContaining('main/engine/gpu may import no other engine folder')]);
    expect(await restricted('main/engine/render/x.ts', "import { Project } from '../../engine/project/project.js';\nexport const x = Project;")).toHaveLength(1);
  });
});

describe('import cycles are a lint error (import-x/no-cycle)', () => {
  // The rule follows imports on disk, so the modules are real files: in test-output/ (which the
  // repository's lint ignores; this linter is told not to), removed afterwards.
  const dir = path.join(repoRoot, 'test-output', `lint-cycles-${process.pid}`);
  const linter = new ESLint({ cwd: repoRoot, ignore: false });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cycleMessages(files: Record<string, string>, linted: string): Promise<string[]> {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const [name, code] of Object.entries(files)) writeFileSync(path.join(dir, name), code);
    const [result] = await linter.lintFiles([path.join(dir, linted)]);
    return result.messages.filter((m) => m.ruleId === 'import-x/no-cycle').map((m) => m.message);
  }

  it('fires on two modules that import each other (./x.js naming x.ts)', async () => {
    const messages = await cycleMessages({
      'a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'b.ts': "import { a } from './a.js';\nexport const b = 1;\nexport const c = a;\n",
    }, 'a.ts');
    expect(messages).toEqual(['Dependency cycle detected']);
  });

  it('fires on a longer circle and names the way round', async () => {
    const messages = await cycleMessages({
      'x.ts': "import { y } from './y.js';\nexport const x = () => y;\n",
      'y.ts': "import { z } from './z.js';\nexport const y = () => z;\n",
      'z.ts': "export { x as z } from './x.js';\n",
    }, 'x.ts');
    expect(messages).toEqual([expect.stringMatching(/^Dependency cycle via "\.\/z\.js:1"$/)]);
  });

  it('stays quiet on a chain without a circle, and on a circle of type imports (import-graph.test.ts refuses those)', async () => {
    expect(await cycleMessages({
      'p.ts': "import { q } from './q.js';\nexport const p = q;\n",
      'q.ts': "import { r } from './r.js';\nexport const q = r;\n",
      'r.ts': 'export const r = 1;\n',
    }, 'p.ts')).toEqual([]);
    expect(await cycleMessages({
      's.ts': "import type { T } from './t.js';\nexport interface S { t?: T }\n",
      't.ts': "import type { S } from './s.js';\nexport interface T { s?: S }\n",
    }, 's.ts')).toEqual([]);
  });
});

describe('docs/architecture.md states the layers lint enforces', () => {
  it('lists every engine folder with exactly what ENGINE_LAYERS lets it import', () => {
    const doc = readFileSync(path.join(repoRoot, 'docs/architecture.md'), 'utf8');
    const table = /^engine folder +may import.*\n((?:\w+ +.+\n)+)/m.exec(doc);
    expect(table, 'docs/architecture.md: the engine layer table (a line "engine folder   may import ...") is missing').not.toBeNull();
    const documented = Object.fromEntries(table![1].trim().split('\n').map((line) => {
      const [folder, ...rest] = line.trim().split(/\s+/);
      const imports = rest.join(' ');
      return [folder, imports === '-' ? [] : imports.split(/,\s*/)];
    }));
    expect(documented).toEqual(ENGINE_LAYERS);
  });
});
