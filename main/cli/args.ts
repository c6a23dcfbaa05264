import { getParamByFlag, parseParamValue, type ParamDef, type ParamValue } from '../../shared/params/index.js';

/** A command's own I/O option (not a user parameter: those come from the registry). */
export interface OptionSpec {
  flag: string;
  type: 'bool' | 'string' | 'int' | 'float';
  help: string;
  valueName?: string;
  /** The only values the option takes (a string or int option); anything else is a UsageError. */
  choices?: readonly (string | number)[];
  /** A string option given any number of times: its value is the list, in command-line order. */
  repeatable?: boolean;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface ParsedArgs {
  positionals: string[];
  /** Command options by flag name (a repeatable option's: every value given, in order). */
  options: Record<string, string | number | boolean | string[]>;
  /** Registry parameters by key. */
  params: Record<string, ParamValue>;
}

/**
 * Parses `--flag value`, `--flag=value` and boolean `--flag` against a command's options and
 * the registry parameters it accepts. Anything else is a UsageError (exit code 2).
 */
export function parseArgs(argv: readonly string[], options: readonly OptionSpec[], params: readonly ParamDef[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], options: {}, params: {} };
  const optionByFlag = new Map(options.map((o) => [o.flag, o]));
  const paramByFlag = new Map(params.map((p) => [p.flag, p]));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = arg.slice(2, eq < 0 ? undefined : eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    const option = optionByFlag.get(flag);
    const param = paramByFlag.get(flag);
    if (!option && !param) {
      const known = getParamByFlag(flag);
      throw new UsageError(known ? `--${flag} does not apply to this command` : `unknown option --${flag}`);
    }
    const isBool = option ? option.type === 'bool' : param!.type === 'bool';
    let raw: string | boolean;
    if (inline !== undefined) raw = inline;
    else if (isBool) raw = true;
    else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) throw new UsageError(`--${flag} needs a value`);
      raw = next;
      i++;
    }
    if (option?.repeatable) out.options[flag] = [...((out.options[flag] as string[] | undefined) ?? []), parseOptionValue(option, raw) as string];
    else if (option) out.options[flag] = parseOptionValue(option, raw);
    else {
      try {
        out.params[param!.key] = parseParamValue(param!, raw);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    }
  }
  return out;
}

function parseOptionValue(option: OptionSpec, raw: string | boolean): string | number | boolean {
  const value = parseOptionType(option, raw);
  if (option.choices && !option.choices.includes(value as string | number)) {
    throw new UsageError(`--${option.flag}: expected one of ${option.choices.join(', ')}, got "${String(raw)}"`);
  }
  return value;
}

function parseOptionType(option: OptionSpec, raw: string | boolean): string | number | boolean {
  const where = `--${option.flag}`;
  switch (option.type) {
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      if (['true', '1', 'yes'].includes(raw)) return true;
      if (['false', '0', 'no'].includes(raw)) return false;
      throw new UsageError(`${where}: expected true or false, got "${raw}"`);
    case 'string':
      if (typeof raw !== 'string' || raw === '') throw new UsageError(`${where} needs a value`);
      return raw;
    case 'int':
    case 'float': {
      const n = Number(raw);
      if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n) || (option.type === 'int' && !Number.isInteger(n))) {
        throw new UsageError(`${where}: expected a${option.type === 'int' ? ' whole' : ''} number, got "${String(raw)}"`);
      }
      return n;
    }
  }
}
