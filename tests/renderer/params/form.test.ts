import { describe, expect, it } from 'vitest';
import { allParams, getParam, parseParamValue, type ParamDef } from '../../../shared/params/index.js';
import {
  applyPreset,
  defaultValues,
  describeParam,
  formatValue,
  fromSlider,
  groupParams,
  matchingPreset,
  offeredPresets,
  parseFieldInput,
  sliderFor,
  toSlider,
  validateValue,
} from '../../../renderer/src/params/form.js';
import { SYNTHETIC_PARAMS } from '../fixtures/synthetic-params.js';

const param = (key: string): ParamDef => SYNTHETIC_PARAMS.find((p) => p.key === key)!;

function cliMessage(def: ParamDef, raw: string): string {
  try {
    parseParamValue(def, raw);
  } catch (error) {
    return (error as Error).message.replace(`--${def.flag}: `, '');
  }
  throw new Error(`${raw} is valid for ${def.key}`);
}

describe('parameter form logic', () => {
  it('groups parameters in order of first appearance, advanced ones apart, losing none', () => {
    const groups = groupParams(SYNTHETIC_PARAMS);
    expect(groups.map((g) => g.name)).toEqual(['Training', 'Densification', 'Rendering', 'Output']);
    expect(groups[0].basic.map((p) => p.key)).toEqual(['train.iterations', 'train.learningRate', 'train.ssimWeight']);
    expect(groups[0].advanced.map((p) => p.key)).toEqual(['train.shDegree']);
    for (const defs of [SYNTHETIC_PARAMS, allParams()]) {
      const keys = groupParams(defs).flatMap((g) => [...g.basic, ...g.advanced].map((p) => p.key));
      expect(keys.sort()).toEqual(defs.map((p) => p.key).sort());
    }
  });

  it('parses what is typed exactly like the CLI, and reports the CLI message without the flag', () => {
    const iterations = param('train.iterations');
    expect(parseFieldInput(iterations, '5000')).toEqual({ ok: true, value: 5000 });
    for (const raw of ['abc', '', '12.5', '99', '100001']) {
      expect(parseFieldInput(iterations, raw)).toEqual({ ok: false, message: cliMessage(iterations, raw) });
    }
    expect(parseFieldInput(iterations, '99')).toEqual({ ok: false, message: '99 is out of range [100, 100000] steps' });
    const strategy = param('train.strategy');
    expect(parseFieldInput(strategy, 'adc')).toEqual({ ok: false, message: 'expected one of default, mcmc, got "adc"' });
    expect(parseFieldInput(param('train.densify'), false)).toEqual({ ok: true, value: false });
    expect(parseFieldInput(param('train.runName'), '')).toEqual({ ok: true, value: '' });
    const backend = getParam('system.backend')!;
    expect(parseFieldInput(backend, 'cuda')).toEqual({ ok: false, message: cliMessage(backend, 'cuda') });
  });

  it('validates values from elsewhere (project files) with the same rules', () => {
    expect(validateValue(param('train.iterations'), 30000)).toBeUndefined();
    expect(validateValue(param('train.iterations'), 5)).toBe('5 is out of range [100, 100000] steps');
    expect(validateValue(param('train.iterations'), 2.5)).toBe('expected a whole number, got "2.5"');
    expect(validateValue(param('train.strategy'), 'fast')).toMatch(/expected one of default, mcmc/);
    expect(validateValue(param('train.densify'), 'yes')).toBe('expected true or false, got "yes"');
    expect(validateValue(param('train.runName'), '')).toBeUndefined();
    for (const def of [...SYNTHETIC_PARAMS, ...allParams()]) expect(validateValue(def, def.default), def.key).toBeUndefined();
  });

  it('offers the presets parameters name and applies them to those parameters only', () => {
    expect(offeredPresets(SYNTHETIC_PARAMS)).toEqual(['fast', 'balanced', 'quality']);
    expect(offeredPresets(allParams().filter((p) => !p.presets))).toEqual([]);
    expect(offeredPresets(allParams())).toEqual(['fast', 'balanced', 'quality'].filter((preset) => allParams().some((p) => p.presets?.[preset as 'fast'] !== undefined)));
    const values = { ...defaultValues(SYNTHETIC_PARAMS), 'train.ssimWeight': 0.5 };
    const fast = applyPreset(SYNTHETIC_PARAMS, values, 'fast');
    expect(fast['train.iterations']).toBe(7000);
    expect(fast['train.learningRate']).toBe(0.004);
    expect(fast['train.shDegree']).toBe(1);
    expect(fast['train.ssimWeight']).toBe(0.5);
    expect(matchingPreset(SYNTHETIC_PARAMS, fast)).toBe('fast');
    expect(matchingPreset(SYNTHETIC_PARAMS, { ...fast, 'train.iterations': 8000 })).toBeUndefined();
    // balanced names only iterations; defaults match it.
    expect(matchingPreset(SYNTHETIC_PARAMS, defaultValues(SYNTHETIC_PARAMS))).toBe('balanced');
  });

  it('offers sliders where the range allows, logarithmic across three or more decades', () => {
    expect(sliderFor(param('train.ssimWeight'))).toEqual({ min: 0, max: 1, scale: 'linear', step: 'any' });
    expect(sliderFor(param('train.shDegree'))).toEqual({ min: 0, max: 3, scale: 'linear', step: 1 });
    const lr = sliderFor(param('train.learningRate'))!;
    expect(lr.scale).toBe('log');
    expect(fromSlider(param('train.learningRate'), lr, toSlider(lr, 0.0016))).toBeCloseTo(0.0016, 10);
    expect(fromSlider(param('train.learningRate'), lr, lr.max + 1)).toBe(0.1);
    const it = sliderFor(param('train.iterations'))!;
    expect(it.scale).toBe('log');
    expect(Number.isInteger(fromSlider(param('train.iterations'), it, 3.3))).toBe(true);
    for (const key of ['train.densify', 'train.strategy', 'train.runName']) expect(sliderFor(param(key))).toBeUndefined();
    expect(sliderFor({ ...(param('train.ssimWeight') as ParamDef & { type: 'float' }), min: -Infinity })).toBeUndefined();
  });

  it('describes a parameter with its help, range, unit, default, presets, flag and variable', () => {
    const text = describeParam(param('train.iterations'));
    expect(text).toContain('Optimizer steps to run.');
    expect(text).toContain('Range: 100 to 100000 steps');
    expect(text).toContain('Default: 30000 steps');
    expect(text).toContain('Presets: fast 7000, balanced 30000, quality 60000');
    expect(text).toContain('CLI: --iterations');
    expect(describeParam(param('train.runName'))).toContain('env ARGONAUT_RUN_NAME');
    expect(describeParam(param('train.runName'))).toContain('Default: (empty)');
  });

  it('formats floats without binary noise', () => {
    expect(formatValue(param('train.ssimWeight'), 0.1 + 0.2)).toBe('0.3');
    expect(formatValue(param('train.iterations'), 7000)).toBe('7000');
    expect(formatValue(param('train.runName'), undefined)).toBe('');
  });
});
