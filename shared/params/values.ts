import { z } from 'zod';
import type { ParamDef, ParamValue, ParamValueOf, ParamValuesOf, PresetName } from './types.js';

/** Parses one raw string (a CLI flag or an environment variable) for a parameter. */
export function parseParamValue(def: ParamDef, raw: string | boolean): ParamValue {
  const where = `--${def.flag}`;
  switch (def.type) {
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on', ''].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new Error(`${where}: expected a boolean (true/false), got "${raw}"`);
    }
    case 'int':
    case 'float': {
      if (typeof raw === 'boolean') throw new Error(`${where}: expected a number`);
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new Error(`${where}: expected a number, got "${raw}"`);
      if (def.type === 'int' && !Number.isInteger(n)) throw new Error(`${where}: expected a whole number, got "${raw}"`);
      if (n < def.min || n > def.max) throw new Error(`${where}: ${n} is out of range [${def.min}, ${def.max}]${def.unit ? ` ${def.unit}` : ''}`);
      return n;
    }
    case 'enum': {
      if (typeof raw === 'boolean' || !def.choices.includes(raw)) throw new Error(`${where}: expected one of ${def.choices.join(', ')}, got "${String(raw)}"`);
      return raw;
    }
    case 'string':
      if (typeof raw === 'boolean') throw new Error(`${where}: expected a value`);
      return raw;
  }
}

/** The zod schema of one parameter's value; the project file and the contract use these. */
export function paramValueSchema(def: ParamDef): z.ZodType<ParamValue> {
  switch (def.type) {
    case 'bool':
      return z.boolean();
    case 'int':
      return z.number().int().min(def.min).max(def.max);
    case 'float':
      return z.number().min(def.min).max(def.max);
    case 'enum':
      return z.enum(def.choices as [string, ...string[]]);
    case 'string':
      return z.string();
  }
}

/** Schema of a partial `{ key: value }` map over the given parameters, unknown keys refused. */
export function paramsSchema(defs: readonly ParamDef[]) {
  const shape: Record<string, z.ZodOptional<z.ZodType<ParamValue>>> = {};
  for (const def of defs) shape[def.key] = paramValueSchema(def).optional();
  return z.object(shape).strict();
}

/** Default of a parameter under a preset (the preset's value where it names one). */
export function defaultFor<D extends ParamDef>(def: D, preset?: PresetName): ParamValueOf<D> {
  return ((preset && def.presets?.[preset]) ?? def.default) as ParamValueOf<D>;
}

/**
 * Resolves values in precedence order: explicit > environment > preset > default.
 * Returns a full map of every given parameter, typed by the definitions given: resolved over
 * `paramsWithPrefix('train.')`, `values['train.iterations']` is a `number` with no cast.
 * Explicit values are taken as they are: they come from a parser or a schema (parseParamValue,
 * paramsSchema) that checked them against the same definitions.
 */
export function resolveParams<D extends ParamDef>(
  defs: readonly D[],
  explicit: Readonly<Record<string, ParamValue>>,
  options: { env?: Readonly<Record<string, string | undefined>>; preset?: PresetName } = {},
): ParamValuesOf<D> {
  const out: Record<string, ParamValue> = {};
  for (const def of defs) {
    if (Object.hasOwn(explicit, def.key)) out[def.key] = explicit[def.key];
    else if (def.env && options.env?.[def.env] !== undefined) out[def.key] = parseParamValue(def, options.env[def.env] as string);
    else out[def.key] = defaultFor(def, options.preset);
  }
  return out as ParamValuesOf<D>;
}
