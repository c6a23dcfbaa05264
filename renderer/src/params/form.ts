/**
 * What ParamPanel shows for a list of parameter definitions, as plain functions (tested in Node).
 * Every rule comes from shared/params: values are parsed with the CLI's `parseParamValue` and
 * checked with the project file's `paramValueSchema`, so the panel, the CLI and the project file
 * can never disagree about what is valid.
 */
import { defaultFor, paramValueSchema, parseParamValue, PRESETS, type ParamDef, type ParamValue, type PresetName } from '../../../shared/params/index.js';

export interface ParamGroup {
  name: string;
  basic: ParamDef[];
  advanced: ParamDef[];
}

/** Groups in order of first appearance; inside a group, table order, advanced ones apart. */
export function groupParams(defs: readonly ParamDef[]): ParamGroup[] {
  const groups = new Map<string, ParamGroup>();
  for (const def of defs) {
    let group = groups.get(def.group);
    if (!group) groups.set(def.group, (group = { name: def.group, basic: [], advanced: [] }));
    (def.advanced ? group.advanced : group.basic).push(def);
  }
  return [...groups.values()];
}

export type ParseResult = { ok: true; value: ParamValue } | { ok: false; message: string };

/** The CLI's message without its `--flag: ` prefix (the field is labelled already). */
function fieldMessage(def: ParamDef, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const prefix = `--${def.flag}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** Parses what the user typed (or toggled) exactly as the CLI parses a flag. */
export function parseFieldInput(def: ParamDef, raw: string | boolean): ParseResult {
  try {
    const value = parseParamValue(def, raw);
    const checked = paramValueSchema(def).safeParse(value);
    if (!checked.success) return { ok: false, message: checked.error.issues.map((i) => i.message).join('; ') };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: fieldMessage(def, error) };
  }
}

/** Checks a value that arrived from elsewhere (a project file, a store); undefined when valid. */
export function validateValue(def: ParamDef, value: unknown): string | undefined {
  if (paramValueSchema(def).safeParse(value).success) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    const reparsed = parseFieldInput(def, typeof value === 'boolean' ? value : String(value));
    if (!reparsed.ok) return reparsed.message;
  }
  const expected = def.type === 'int' || def.type === 'float' ? 'a number' : def.type === 'bool' ? 'true or false' : def.type === 'enum' ? `one of ${def.choices.join(', ')}` : 'text';
  return `expected ${expected}, got ${JSON.stringify(value) ?? String(value)}`;
}

/** The text a field shows for a value. */
export function formatValue(def: ParamDef, value: ParamValue | undefined): string {
  if (value === undefined) return '';
  if (def.type === 'float' && typeof value === 'number') return String(Number(value.toPrecision(12)));
  return String(value);
}

/** Presets that at least one of the parameters names, in the registry's order. */
export function offeredPresets(defs: readonly ParamDef[]): PresetName[] {
  return PRESETS.filter((preset) => defs.some((def) => def.presets?.[preset] !== undefined));
}

/** The values with each parameter that names `preset` set to its preset value; others untouched. */
export function applyPreset(defs: readonly ParamDef[], values: Readonly<Record<string, ParamValue>>, preset: PresetName): Record<string, ParamValue> {
  const out = { ...values };
  for (const def of defs) if (def.presets?.[preset] !== undefined) out[def.key] = defaultFor(def, preset);
  return out;
}

/** The preset whose values all parameters that name it currently hold, if any. */
export function matchingPreset(defs: readonly ParamDef[], values: Readonly<Record<string, ParamValue>>): PresetName | undefined {
  return offeredPresets(defs).find((preset) =>
    defs.every((def) => def.presets?.[preset] === undefined || values[def.key] === def.presets[preset]),
  );
}

/** Every parameter at its default (under a preset where given). */
export function defaultValues(defs: readonly ParamDef[], preset?: PresetName): Record<string, ParamValue> {
  return Object.fromEntries(defs.map((def) => [def.key, defaultFor(def, preset)]));
}

export interface SliderSpec {
  min: number;
  max: number;
  /** Slider position -> value and back; a log scale for positive ranges spanning 3+ decades. */
  scale: 'linear' | 'log';
  step: number | 'any';
}

/** A range slider where the bounds allow one; undefined for text/enum/bool or unbounded numbers. */
export function sliderFor(def: ParamDef): SliderSpec | undefined {
  if (def.type !== 'int' && def.type !== 'float') return undefined;
  if (!Number.isFinite(def.min) || !Number.isFinite(def.max) || def.max <= def.min) return undefined;
  const log = def.min > 0 && def.max / def.min >= 1000;
  if (log) return { min: Math.log10(def.min), max: Math.log10(def.max), scale: 'log', step: 'any' };
  return { min: def.min, max: def.max, scale: 'linear', step: def.type === 'int' ? 1 : 'any' };
}

/** Slider position for a value. */
export function toSlider(spec: SliderSpec, value: number): number {
  return spec.scale === 'log' ? Math.log10(Math.max(value, 10 ** spec.min)) : value;
}

/** Value for a slider position, rounded for ints and to 3 significant digits on log sliders. */
export function fromSlider(def: ParamDef, spec: SliderSpec, position: number): number {
  let value = spec.scale === 'log' ? 10 ** position : position;
  if (spec.scale === 'log') value = Number(value.toPrecision(3));
  if (def.type === 'int') value = Math.round(value);
  if (def.type === 'int' || def.type === 'float') value = Math.min(def.max, Math.max(def.min, value));
  return value;
}

/** Tooltip text: the help, then range, unit, default, CLI flag and environment variable. */
export function describeParam(def: ParamDef): string {
  const lines = [def.help];
  if (def.type === 'int' || def.type === 'float') lines.push(`Range: ${def.min} to ${def.max}${def.unit ? ` ${def.unit}` : ''}`);
  else if (def.unit) lines.push(`Unit: ${def.unit}`);
  lines.push(`Default: ${def.default === '' ? '(empty)' : String(def.default)}${def.unit ? ` ${def.unit}` : ''}`);
  const presets = PRESETS.filter((p) => def.presets?.[p] !== undefined).map((p) => `${p} ${String(def.presets![p])}`);
  if (presets.length) lines.push(`Presets: ${presets.join(', ')}`);
  lines.push(`CLI: --${def.flag}${def.env ? ` · env ${def.env}` : ''}`);
  return lines.join('\n');
}
