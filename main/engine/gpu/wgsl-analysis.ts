/**
 * Static facts about a (preprocessed) WGSL module: the workgroup memory an entry point declares,
 * with override and module constants applied. Benchmarks report it per pipeline variant; it is
 * what "a pipeline whose feature is off allocates none of its workgroup memory" is checked with.
 */

const SCALAR_BYTES: Record<string, number> = { u32: 4, i32: 4, f32: 4, f16: 2, bool: 4 };

/** Byte stride of a WGSL type inside an array (vec3 is padded to 16). */
export function typeStride(type: string, values: Readonly<Record<string, number>>): number {
  const t = type.replace(/\s+/g, '');
  if (t in SCALAR_BYTES) return SCALAR_BYTES[t];
  const atomic = t.match(/^atomic<(\w+)>$/);
  if (atomic) return SCALAR_BYTES[atomic[1]];
  const vec = t.match(/^vec([234])(?:<(\w+)>|([fiuh]))$/);
  if (vec) {
    const scalar = vec[2] ?? { f: 'f32', i: 'i32', u: 'u32', h: 'f16' }[vec[3] as 'f' | 'i' | 'u' | 'h'];
    const n = Number(vec[1]);
    const s = SCALAR_BYTES[scalar];
    return n === 3 ? 4 * s : n * s;
  }
  const arr = t.match(/^array<(.+),([^,>]+)>$/);
  if (arr) return typeStride(arr[1], values) * evaluate(arr[2], values);
  throw new Error(`wgsl-analysis: unsupported type ${type}`);
}

/** Evaluates a constant integer expression (+ - * / parentheses, names, `u` suffixes). */
export function evaluate(expression: string, values: Readonly<Record<string, number>>): number {
  const tokens = expression.replace(/(\d+)u\b/g, '$1').match(/\d+|[A-Za-z_]\w*|[-+*/()]/g) ?? [];
  let i = 0;
  const primary = (): number => {
    const t = tokens[i++];
    if (t === '(') {
      const v = sum();
      i++;
      return v;
    }
    if (t === '-') return -primary();
    if (/^\d+$/.test(t)) return Number(t);
    if (t in values) return values[t];
    throw new Error(`wgsl-analysis: unknown name ${t} in "${expression}"`);
  };
  const product = (): number => {
    let v = primary();
    while (tokens[i] === '*' || tokens[i] === '/') v = tokens[i++] === '*' ? v * primary() : Math.floor(v / primary());
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (tokens[i] === '+' || tokens[i] === '-') v = tokens[i++] === '+' ? v + product() : v - product();
    return v;
  };
  return sum();
}

function functionBodies(source: string): Map<string, string> {
  const bodies = new Map<string, string>();
  const re = /\bfn\s+(\w+)\s*\(/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(source))) {
    let at = source.indexOf('{', re.lastIndex);
    // skip the parameter list's attributes/braces-free text up to the body
    let depth = 0;
    const start = at;
    for (; at < source.length; at++) {
      if (source[at] === '{') depth++;
      else if (source[at] === '}' && --depth === 0) break;
    }
    bodies.set(match[1], source.slice(start, at + 1));
  }
  return bodies;
}

/** The functions an entry point's call graph reaches (itself included). */
function reachableFunctions(bodies: Map<string, string>, entryPoint: string): Set<string> {
  const reachable = new Set<string>();
  const visit = (name: string) => {
    if (reachable.has(name) || !bodies.has(name)) return;
    reachable.add(name);
    for (const other of bodies.keys()) if (new RegExp(`\\b${other}\\s*\\(`).test(bodies.get(name)!)) visit(other);
  };
  visit(entryPoint);
  if (!reachable.size) throw new Error(`wgsl-analysis: no entry point ${entryPoint}`);
  return reachable;
}

/** Workgroup bytes an entry point uses (variables reachable through its call graph). */
export function workgroupMemoryBytes(source: string, entryPoint: string, constants: Readonly<Record<string, number>> = {}): number {
  const values: Record<string, number> = {};
  for (const m of source.matchAll(/\b(?:override|const)\s+(\w+)\s*(?::\s*\w+)?\s*=\s*([^;]+);/g)) {
    try {
      values[m[1]] = evaluate(m[2], values);
    } catch {
      // not an integer constant
    }
  }
  Object.assign(values, constants);
  const vars = [...source.matchAll(/var<workgroup>\s+(\w+)\s*:\s*([^;]+);/g)].map((m) => ({ name: m[1], type: m[2] }));
  const bodies = functionBodies(source);
  const reachable = reachableFunctions(bodies, entryPoint);
  const used = vars.filter((v) => [...reachable].some((f) => new RegExp(`\\b${v.name}\\b`).test(bodies.get(f)!)));
  return used.reduce((sum, v) => sum + typeStride(v.type, values), 0);
}

/**
 * Bindings of `group` an entry point statically uses (resources referenced anywhere in its call
 * graph): exactly what a pipeline's automatic layout holds, so a bind group built for several
 * entry points of one kernel can be trimmed to the one it serves.
 */
export function usedBindings(source: string, entryPoint: string, group = 0, addressSpace?: 'storage' | 'uniform'): Set<number> {
  const bodies = functionBodies(source);
  const reachable = reachableFunctions(bodies, entryPoint);
  const used = new Set<number>();
  for (const m of source.matchAll(/@group\((\d+)\)\s*@binding\((\d+)\)\s*var(?:<([^>]*)>)?\s+(\w+)/g)) {
    if (Number(m[1]) !== group) continue;
    // only `addressSpace` bindings when given (maxStorageBuffersPerShaderStage counts var<storage>)
    if (addressSpace && !(m[3] ?? '').trim().startsWith(addressSpace)) continue;
    const name = new RegExp(`\\b${m[4]}\\b`);
    if ([...reachable].some((f) => name.test(bodies.get(f)!))) used.add(Number(m[2]));
  }
  return used;
}
