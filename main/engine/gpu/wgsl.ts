/**
 * A minimal WGSL preprocessor. WGSL has no includes and `enable subgroups;` must be absent on
 * devices without the feature, so capability variants are made here, once per device at load,
 * never by branching inside a kernel:
 *
 *   #include "common"         paste another kernel source (once per translation unit, so
 *                             cycles and diamonds are harmless)
 *   #if NAME / #ifdef NAME    keep the block when NAME is defined and truthy
 *   #if !NAME / #ifndef NAME  the opposite
 *   #else / #endif
 *
 * Everything else (workgroup sizes, feature switches that size workgroup arrays) is an
 * `override` constant, so one source compiles to many specialized pipelines.
 */
export type Defines = Readonly<Record<string, boolean>>;

export function preprocessWgsl(name: string, sources: Readonly<Record<string, string>>, defines: Defines): string {
  const included = new Set<string>();
  const expand = (file: string, stackNames: string[]): string => {
    const source = sources[file];
    if (source === undefined) throw new Error(`WGSL: ${stackNames.join(' -> ')} includes unknown source "${file}"`);
    included.add(file);
    const out: string[] = [];
    const keep: boolean[] = [];
    const lines = source.split('\n');
    lines.forEach((line, index) => {
      const where = `${file}.wgsl:${index + 1}`;
      const directive = line.trim().match(/^#(\w+)\s*(.*)$/);
      const active = keep.every(Boolean);
      if (!directive) {
        out.push(active ? line : '');
        return;
      }
      const [, word, rest] = directive;
      if (word !== 'include') out.push(''); // keep line numbers
      switch (word) {
        case 'if':
        case 'ifdef':
        case 'ifndef': {
          const negated = word === 'ifndef' || rest.startsWith('!');
          const key = rest.replace(/^!/, '').trim();
          if (!/^\w+$/.test(key)) throw new Error(`WGSL ${where}: bad condition "${rest}"`);
          keep.push(Boolean(defines[key]) !== negated);
          break;
        }
        case 'else':
          if (!keep.length) throw new Error(`WGSL ${where}: #else without #if`);
          keep.push(!keep.pop());
          break;
        case 'endif':
          if (!keep.length) throw new Error(`WGSL ${where}: #endif without #if`);
          keep.pop();
          break;
        case 'include': {
          const target = rest.trim().replace(/^"|"$/g, '');
          if (active && !included.has(target)) out.push(expand(target, [...stackNames, file]));
          else out.push('');
          break;
        }
        default:
          throw new Error(`WGSL ${where}: unknown directive #${word}`);
      }
    });
    if (keep.length) throw new Error(`WGSL ${file}.wgsl: unterminated #if`);
    return out.join('\n');
  };
  const body = expand(name, []);
  // `enable` and global `diagnostic` directives must precede every declaration, including those
  // of included files.
  const enables: string[] = [];
  const rest = body
    .split('\n')
    .filter((line) => {
      if (/^\s*(enable\s+\w+|diagnostic\s*\([^)]*\))\s*;/.test(line)) {
        if (!enables.includes(line.trim())) enables.push(line.trim());
        return false;
      }
      return true;
    })
    .join('\n');
  return [...enables, rest].join('\n');
}
