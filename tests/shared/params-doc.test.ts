import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allParams, type EnumParam } from '../../shared/params/index.js';
import { PARAMETERS_DOC, parametersMarkdown } from '../../shared/params/doc.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('docs/parameters.md', () => {
  it('is current: what the registry renders, byte for byte (else run node scripts/gen-params-doc.mjs)', () => {
    const file = readFileSync(path.join(root, PARAMETERS_DOC), 'utf8');
    expect(file === parametersMarkdown(), `${PARAMETERS_DOC} is stale: run node scripts/gen-params-doc.mjs`).toBe(true);
  });

  it('has one table row per parameter, in registry order, with its flag, default and range', () => {
    const rows = parametersMarkdown().split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.map((r) => /^\| `([^`]+)`/.exec(r)?.[1])).toEqual(allParams().map((p) => p.key));
    const iterations = rows.find((r) => r.startsWith('| `train.iterations`'))!;
    expect(iterations).toContain('`--iterations`');
    expect(iterations).toContain('`30000`');
    expect(iterations).toContain('1 to 10000000');
    expect(iterations).toContain('fast: `7000`');
  });

  it('keeps a help text with pipes and line breaks inside its cell', () => {
    const odd: EnumParam = { key: 'x.odd', flag: 'odd', type: 'enum', choices: ['a|b', 'c'], default: 'c', group: 'X', label: 'Odd', commands: ['train'], help: 'one | two\nthree' };
    const row = parametersMarkdown([odd]).split('\n').find((l) => l.startsWith('| `x.odd`'))!;
    expect(row).toContain('one \\| two three');
    expect(row).toContain('`a\\|b`');
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(11); // 11 cells, none split by an escaped pipe
  });

  it('the generator script agrees (--check exits 0 on the committed file)', () => {
    const out = execFileSync(process.execPath, [path.join(root, 'scripts/gen-params-doc.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    expect(out).toContain('is current');
  });
});
