/**
 * A worker's path map (`worker --path-map FROM=TO`, docs/scale.md "Storage assumptions"): a block
 * job names the project by the coordinator's absolute path of its .argo file; a worker that sees
 * the shared storage mounted elsewhere maps the prefix. Only the project file needs mapping:
 * every path inside a project (dataset, runs, checkpoints) is relative to the .argo file.
 *
 * FROM is matched on whole path segments (`/mnt/a` maps `/mnt/a/p.argo`, not `/mnt/ab/p.argo`);
 * the longest matching FROM wins. A Windows FROM (`C:\Projects`, `\\filer\share`) matches case-
 * insensitively and with either separator, so a coordinator on Windows can feed Linux workers.
 */
import path from 'node:path';

export interface PathMapping {
  from: string;
  to: string;
}

/** A path map entry the worker cannot use, with what was expected (the CLI's usage error, exit 2). */
export class PathMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathMapError';
  }
}

const isWindowsPath = (p: string) => /^[A-Za-z]:[\\/]/.test(p) || /^\\\\[^\\]/.test(p);

/** `FROM=TO`, both absolute; TO on this machine. The first `=` splits (a FROM never holds one on a sane mount). */
export function parsePathMapping(entry: string): PathMapping {
  const eq = entry.indexOf('=');
  if (eq < 0) throw new PathMapError(`--path-map "${entry}": expected FROM=TO (the coordinator's folder = the same folder here)`);
  const from = entry.slice(0, eq);
  const to = entry.slice(eq + 1);
  if (!from || !to) throw new PathMapError(`--path-map "${entry}": expected FROM=TO with both paths given`);
  if (!path.posix.isAbsolute(from) && !isWindowsPath(from)) throw new PathMapError(`--path-map "${entry}": FROM must be an absolute path (the coordinator's), got "${from}"`);
  if (!path.isAbsolute(to)) throw new PathMapError(`--path-map "${entry}": TO must be an absolute path on this machine, got "${to}"`);
  return { from: trimSeparators(from), to: path.resolve(to) };
}

/** Every entry parsed; the same FROM twice is refused (which one would win?). */
export function parsePathMap(entries: readonly string[]): PathMapping[] {
  const map = entries.map(parsePathMapping);
  const seen = new Set<string>();
  for (const m of map) {
    const key = isWindowsPath(m.from) ? m.from.toLowerCase().replaceAll('/', '\\') : m.from;
    if (seen.has(key)) throw new PathMapError(`--path-map: ${m.from} is mapped twice`);
    seen.add(key);
  }
  return map;
}

function trimSeparators(p: string): string {
  const trimmed = p.replace(/[\\/]+$/, '');
  return trimmed === '' ? p.slice(0, 1) : trimmed; // "/" stays "/"
}

/** The segments of `file` below `from`, or undefined when `from` is not a prefix of whole segments. */
function below(from: string, file: string): string[] | undefined {
  if (isWindowsPath(from)) {
    const f = from.replaceAll('/', '\\').toLowerCase();
    const p = file.replaceAll('/', '\\');
    if (!p.toLowerCase().startsWith(f)) return undefined;
    const rest = p.slice(f.length);
    if (rest !== '' && !rest.startsWith('\\')) return undefined;
    return rest.split('\\').filter(Boolean);
  }
  if (from === '/') return file.startsWith('/') ? file.split('/').filter(Boolean) : undefined;
  if (!file.startsWith(from)) return undefined;
  const rest = file.slice(from.length);
  if (rest !== '' && !rest.startsWith('/')) return undefined;
  return rest.split('/').filter(Boolean);
}

/** The coordinator's path as this worker sees it: the longest matching FROM replaced by its TO; unmapped paths unchanged. */
export function mapPath(map: readonly PathMapping[], file: string): string {
  let best: { mapping: PathMapping; rest: string[] } | undefined;
  for (const mapping of map) {
    const rest = below(mapping.from, file);
    if (rest && (!best || mapping.from.length > best.mapping.from.length)) best = { mapping, rest };
  }
  if (!best) return file;
  if (best.rest.some((s) => s === '..')) throw new PathMapError(`${file}: a job's project path may not climb out of ${best.mapping.from} with ".."`);
  return path.join(best.mapping.to, ...best.rest);
}
