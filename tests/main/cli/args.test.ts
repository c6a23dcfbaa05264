import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../main/cli/args.js';
import { paramsForCommand } from '../../../shared/params/index.js';

const options = [
  { flag: 'json', type: 'bool' as const, help: '' },
  { flag: 'out', type: 'string' as const, help: '' },
  { flag: 'frames', type: 'int' as const, help: '' },
  { flag: 'mode', type: 'string' as const, help: '', choices: ['fast', 'exact'] },
  { flag: 'pixels', type: 'int' as const, help: '', choices: [1, 2] },
  { flag: 'map', type: 'string' as const, help: '', repeatable: true },
];
const params = paramsForCommand('info');

describe('CLI argument parsing', () => {
  it('takes positionals, options in both spellings, and registry parameters', () => {
    const parsed = parseArgs(['a.argo', '--out', 'dir with space', '--frames=12', '--json', '--backend', 'opengl', '--profile'], options, params);
    expect(parsed.positionals).toEqual(['a.argo']);
    expect(parsed.options).toEqual({ out: 'dir with space', frames: 12, json: true });
    expect(parsed.params).toEqual({ 'system.backend': 'opengl', 'system.profile': true });
  });

  it('collects a repeatable option\'s values in order; a plain option keeps its last', () => {
    const parsed = parseArgs(['--map', 'a=b', '--out', 'x', '--map=c=d', '--out', 'y'], options, params);
    expect(parsed.options).toEqual({ map: ['a=b', 'c=d'], out: 'y' });
    expect(() => parseArgs(['--map'], options, params)).toThrow('--map needs a value');
  });

  it('refuses unknown flags, missing values and bad values as usage errors', () => {
    expect(() => parseArgs(['--nope'], options, params)).toThrow(UsageError);
    expect(() => parseArgs(['--out'], options, params)).toThrow(/--out needs a value/);
    expect(() => parseArgs(['--frames', 'x'], options, params)).toThrow(/--frames: expected a whole number/);
    expect(() => parseArgs(['--backend', 'glide'], options, params)).toThrow(/--backend: expected one of/);
  });

  it('holds options with choices to them', () => {
    expect(parseArgs(['--mode', 'exact', '--pixels=2'], options, params).options).toEqual({ mode: 'exact', pixels: 2 });
    expect(() => parseArgs(['--mode', 'quick'], options, params)).toThrow(/--mode: expected one of fast, exact, got "quick"/);
    expect(() => parseArgs(['--pixels', '3'], options, params)).toThrow(/--pixels: expected one of 1, 2, got "3"/);
    expect(() => parseArgs(['--pixels', 'two'], options, params)).toThrow(/--pixels: expected a whole number/);
  });

  it('says when a known parameter does not apply to the command', () => {
    expect(() => parseArgs(['--backend', 'opengl'], options, [])).toThrow(/--backend does not apply to this command/);
  });
});
