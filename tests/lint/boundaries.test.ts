import { ESLint } from 'eslint';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/build.js';

const eslint = new ESLint({ cwd: repoRoot });

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
