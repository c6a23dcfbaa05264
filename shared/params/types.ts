/**
 * Parameter definitions. Every user-facing parameter is declared once (params/registry.ts);
 * the CLI flags and --help, the UI panels, the project-file schema and the docs table all
 * derive from these records.
 */
export const PRESETS = ['fast', 'balanced', 'quality'] as const;
export type PresetName = (typeof PRESETS)[number];

/** Whether a raw string (a `--preset` value, a saved choice) names one of the PRESETS. */
export function isPresetName(name: string): name is PresetName {
  return (PRESETS as readonly string[]).includes(name);
}

interface ParamBase<T> {
  /** Dotted key, also the project-file path: `train.iterations`. */
  readonly key: string;
  /** CLI flag without dashes: `iterations` -> `--iterations`. */
  readonly flag: string;
  readonly group: string;
  readonly label: string;
  readonly help: string;
  readonly unit?: string;
  readonly advanced?: boolean;
  /** CLI commands that take this flag (`train`, `render`, ...); `*` for every command. */
  readonly commands: readonly string[];
  readonly default: T;
  readonly presets?: Partial<Record<PresetName, T>>;
  /** Environment variable that overrides the default (system parameters only). */
  readonly env?: string;
}

export interface IntParam extends ParamBase<number> { readonly type: 'int'; readonly min: number; readonly max: number }
export interface FloatParam extends ParamBase<number> { readonly type: 'float'; readonly min: number; readonly max: number }
export interface BoolParam extends ParamBase<boolean> { readonly type: 'bool' }
export interface EnumParam extends ParamBase<string> { readonly type: 'enum'; readonly choices: readonly string[] }
export interface StringParam extends ParamBase<string> { readonly type: 'string' }

export type ParamDef = IntParam | FloatParam | BoolParam | EnumParam | StringParam;
export type ParamValue = number | boolean | string;

/** The type of a definition's values: a number, a boolean, one of its choices, or text. */
export type ParamValueOf<D extends ParamDef> = D extends { readonly type: 'int' | 'float' }
  ? number
  : D extends { readonly type: 'bool' }
    ? boolean
    : D extends { readonly type: 'enum'; readonly choices: readonly (infer Choice)[] }
      ? Choice
      : string;

/**
 * A `{ key: value }` map over the definitions D, each value of its own parameter's type. For the
 * registry's precise definitions `values['train.iterations']` is a `number`; for plain
 * `ParamDef`s it is `Record<string, ParamValue>`.
 */
export type ParamValuesOf<D extends ParamDef> = { [P in D as P['key']]: ParamValueOf<P> };
