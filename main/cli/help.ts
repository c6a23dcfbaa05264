import { paramsForCommand, type ParamDef } from '../../shared/params/index.js';
import type { OptionSpec } from './args.js';
import type { CommandSpec } from './command.js';

function describeParam(p: ParamDef): string {
  const value = p.type === 'bool' ? '' : p.type === 'enum' ? ` <${p.choices.join('|')}>` : ` <${p.type === 'string' ? 'text' : p.type}>`;
  const range = p.type === 'int' || p.type === 'float' ? ` [${p.min}..${p.max}]` : '';
  const def = p.type === 'string' && !p.default ? '' : ` (default: ${String(p.default)}${p.unit ? ` ${p.unit}` : ''})`;
  const env = p.env ? ` env ${p.env}` : '';
  return row(`--${p.flag}${value}`, `${p.help}${range}${def}${env}`);
}

function describeOption(o: OptionSpec): string {
  return row(`--${o.flag}${o.type === 'bool' ? '' : ` <${o.valueName ?? o.choices?.join('|') ?? o.type}>`}${o.repeatable ? ' ...' : ''}`, o.help);
}

function row(left: string, right: string): string {
  return left.length < 28 ? `  ${left.padEnd(28)}${right}` : `  ${left}\n  ${' '.repeat(28)}${right}`;
}

export function globalHelp(commands: readonly CommandSpec[]): string {
  return [
    'Argonaut Studio: video or photos -> camera poses -> trained Gaussian splats -> mesh.',
    '',
    'usage:',
    '  argonaut                          start the studio (Electron when installed, else browser mode)',
    '  argonaut --browser [--port P]     serve the studio on 127.0.0.1 and print its URL (with a token)',
    '  argonaut --no-gui <command> ...   run headless',
    '',
    'commands:',
    ...commands.map((c) => row(c.name, c.summary)),
    '',
    'GPU options (every command):',
    ...paramsForCommand('*').map(describeParam),
    '',
    'exit codes: 0 ok, 1 failure, 2 usage, 3 bad input, 4 no usable GPU adapter, 130 interrupted',
    "run 'argonaut --no-gui <command> --help' for a command's options",
  ].join('\n');
}

export function commandHelp(command: CommandSpec): string {
  const params = command.params?.() ?? [];
  return [
    `usage: argonaut --no-gui ${command.usage}`,
    '',
    command.summary,
    '',
    ...(command.options.length ? ['options:', ...command.options.map(describeOption), ''] : []),
    ...(params.length ? ['parameters:', ...params.map(describeParam), ''] : []),
    'GPU options:',
    ...paramsForCommand('*').map(describeParam),
  ].join('\n');
}
