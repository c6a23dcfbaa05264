import { describe, expect, expectTypeOf, it } from 'vitest';
import { allParams, getParam, isPresetName, paramDefault, paramsForCommand, paramsSchema, paramsWithPrefix, parseParamValue, PRESETS, resolveParams } from '../../shared/params/index.js';
import type { IntParam } from '../../shared/params/index.js';

const iterations: IntParam = { key: 't.iter', flag: 'iter', type: 'int', min: 1, max: 100, default: 10, presets: { fast: 5 }, group: 'g', label: 'l', help: 'h', commands: ['train'] };

describe('parameter registry', () => {
  it('declares every parameter once, with unique keys and flags', () => {
    const keys = allParams().map((p) => p.key);
    const flags = allParams().map((p) => p.flag);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(flags).size).toBe(flags.length);
    for (const p of allParams()) {
      expect(p.help.length, p.key).toBeGreaterThan(10);
      expect(paramsSchema([p]).safeParse({ [p.key]: p.default }).success, `${p.key} default fits its own schema`).toBe(true);
    }
  });

  it('parses values with range and type checks that name the flag', () => {
    expect(parseParamValue(iterations, '42')).toBe(42);
    expect(() => parseParamValue(iterations, '4.5')).toThrow(/--iter: expected a whole number/);
    expect(() => parseParamValue(iterations, '1000')).toThrow(/--iter: 1000 is out of range \[1, 100\]/);
    expect(() => parseParamValue(iterations, 'abc')).toThrow(/expected a number/);
    const backend = getParam('system.backend')!;
    expect(parseParamValue(backend, 'vulkan')).toBe('vulkan');
    expect(() => parseParamValue(backend, 'cuda')).toThrow(/expected one of auto, vulkan/);
  });

  it('resolves explicit over environment over preset over default', () => {
    const env = { T: '7' };
    const withEnv = { ...iterations, env: 'T' };
    expect(resolveParams([withEnv], { 't.iter': 3 }, { env, preset: 'fast' })['t.iter']).toBe(3);
    expect(resolveParams([withEnv], {}, { env, preset: 'fast' })['t.iter']).toBe(7);
    expect(resolveParams([iterations], {}, { preset: 'fast' })['t.iter']).toBe(5);
    expect(resolveParams([iterations], {}, {})['t.iter']).toBe(10);
  });

  it('derives a strict project-file schema', () => {
    const schema = paramsSchema([iterations]);
    expect(schema.safeParse({ 't.iter': 50 }).success).toBe(true);
    expect(schema.safeParse({ 't.iter': 500 }).success).toBe(false);
    expect(schema.safeParse({ 't.unknown': 1 }).success).toBe(false);
  });

  it('gives every command the GPU options', () => {
    expect(paramsForCommand('info').map((p) => p.flag)).toEqual(expect.arrayContaining(['backend', 'adapter', 'profile', 'kernel-variant']));
  });

  it('types each resolved value by its definition, so lookups need no cast', () => {
    const train = resolveParams(paramsWithPrefix('train.'), { 'train.iterations': 70 });
    expect(train['train.iterations']).toBe(70);
    expect(train['train.strategy']).toBe('adc');
    expectTypeOf(train['train.iterations']).toEqualTypeOf<number>();
    expectTypeOf(train['train.antialiased']).toEqualTypeOf<boolean>();
    expectTypeOf(train['train.strategy']).toEqualTypeOf<'adc' | 'mcmc'>();
    expectTypeOf(train).not.toHaveProperty('mesh.resolution');
    // plain definitions keep the untyped map every caller had before
    expectTypeOf(resolveParams(paramsForCommand('train'), {})).toEqualTypeOf<Record<string, string | number | boolean>>();
  });

  it('lists the parameters of one prefix, in table order', () => {
    const mesh = paramsWithPrefix('mesh.');
    expect(mesh.length).toBeGreaterThan(0);
    expect(mesh.every((p) => p.key.startsWith('mesh.'))).toBe(true);
    expect(mesh.map((p) => p.key)).toEqual(allParams().filter((p) => p.key.startsWith('mesh.')).map((p) => p.key));
  });

  it('states each default once: paramDefault reads the table', () => {
    expect(paramDefault('train.iterations')).toBe(getParam('train.iterations').default);
    expect(paramDefault('train.ssimPadding')).toBe('valid');
    expectTypeOf(paramDefault('train.maxSplats')).toEqualTypeOf<number>();
  });

  it('knows the preset names from PRESETS', () => {
    for (const name of PRESETS) expect(isPresetName(name)).toBe(true);
    expect(isPresetName('turbo')).toBe(false);
    expect(isPresetName('')).toBe(false);
    for (const p of allParams()) for (const name of Object.keys(p.presets ?? {})) expect(PRESETS, `${p.key} preset ${name}`).toContain(name);
  });
});
