import type { ParamDef, ParamValue } from '../../shared/params/index.js';
import type { EngineOptions } from '../engine/engine.js';
import type { OptionSpec } from './args.js';
import type { Output, Streams } from './output.js';

export interface CommandContext {
  positionals: string[];
  options: Record<string, string | number | boolean | string[]>;
  params: Record<string, ParamValue>;
  engineOptions: EngineOptions;
  out: Output;
  streams: Streams;
  /** Aborted on SIGINT: commands save what they must and throw ArgonautError('cancelled'). */
  signal: AbortSignal;
  cwd: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** Usage line after `argonaut --no-gui <name>`. */
  usage: string;
  options: OptionSpec[];
  /** Registry parameters this command reads beyond the system ones (resolved from PARAMS). */
  params?: () => ParamDef[];
  /** Returns the exit code (0 when it returns nothing). */
  run(context: CommandContext): Promise<number | void>;
}

export const JSON_OPTION: OptionSpec = { flag: 'json', type: 'bool', help: 'print JSON lines on stdout: progress events, then one {"type":"result",...}' };
