/**
 * Parameter definitions. Every user-facing parameter is declared once (params/registry.ts);
 * the CLI flags and --help, the UI panels, the project-file schema and the docs table all
 * derive from these records.
 */
export type PresetName = 'fast' | 'balanced' | 'quality';
export const PRESETS: readonly PresetName[] = ['fast', 'balanced', 'quality'];

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
