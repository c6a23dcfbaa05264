/**
 * docs/parameters.md, generated from the registry (`node scripts/gen-params-doc.mjs` writes it;
 * tests/shared/params-doc.test.ts fails when the file is not what this returns).
 */
import { allParams } from './registry.js';
import type { ParamDef, ParamValue } from './types.js';

export const PARAMETERS_DOC = 'docs/parameters.md';

/** A table cell: pipes escaped, line breaks flattened (a cell is one line of Markdown). */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function code(value: ParamValue): string {
  return typeof value === 'string' ? (value === '' ? '(empty)' : `\`${value}\``) : `\`${String(value)}\``;
}

function range(def: ParamDef): string {
  if (def.type === 'int' || def.type === 'float') return `${def.min} to ${def.max}`;
  if (def.type === 'enum') return def.choices.map(code).join(', ');
  return '';
}

function presets(def: ParamDef): string {
  return Object.entries(def.presets ?? {})
    .map(([name, value]) => `${name}: ${code(value)}`)
    .join(', ');
}

const COLUMNS = ['Key', 'CLI flag', 'Type', 'Default', 'Range', 'Unit', 'Group', 'Presets', 'Environment', 'Commands', 'Help'];

function row(def: ParamDef): string[] {
  const commands = def.commands.includes('*') ? 'all' : def.commands.join(', ');
  return [`\`${def.key}\``, `\`--${def.flag}\``, def.type, code(def.default), range(def), def.unit ?? '', def.group, presets(def), def.env ? `\`${def.env}\`` : '', commands, def.help + (def.advanced ? ' (advanced)' : '')];
}

export function parametersMarkdown(params: readonly ParamDef[] = allParams()): string {
  const lines = [
    '# Parameters',
    '',
    '<!-- Generated from shared/params/registry.ts by `node scripts/gen-params-doc.mjs`: edit the registry, not this file. -->',
    '',
    'Every user-facing parameter, as `shared/params/registry.ts` declares it: the CLI flag, the',
    "UI's panels and the project file's `params` all come from this one table. A value is taken in",
    'this order: given explicitly (flag, UI, project) > environment variable > preset (`--preset`) >',
    'default. Parameters marked advanced sit in a collapsed section of the UI panels.',
    '',
    `| ${COLUMNS.join(' | ')} |`,
    `| ${COLUMNS.map(() => '---').join(' | ')} |`,
    ...params.map((def) => `| ${row(def).map(cell).join(' | ')} |`),
    '',
  ];
  return lines.join('\n');
}
