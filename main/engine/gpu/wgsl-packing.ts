/**
 * Packing: a kernel whose entry point binds more storage buffers than the device allows is
 * rewritten so each arena it uses (arena.ts) binds once.
 *
 * A binding joins a pack by an annotation on its declaration line:
 *
 *   @group(0) @binding(4) var<storage, read> rank_conic_opacity: array<vec4f>; // arena ranked.conicOpacity
 *   @group(0) @binding(15) var<storage, read_write> scale_m: array<f32>; // arena moments.m scale_moments
 *
 * (kind.member, then optionally the pack's name, for a kernel binding two arenas of one kind; it
 * defaults to the kind). Packed, the members' declarations go and each pack becomes
 *
 *   @group(0) @binding(<lowest member binding>) var<storage, <read_write if any member is>> pack_<name>: array<element>;
 *   @group(0) @binding(<900 + k>) var<uniform> pack_<name>_at: array<vec4u, n>;   // element offsets
 *
 * and every `member[i]` reads `pack_<name>[pack_<name>_at[slot / 4][slot % 4] + (i)]`. A member
 * used in any other way (a pointer to the whole array, arrayLength) cannot be packed: an error.
 *
 * Packing also decides the case a device's limits do not: two members of one pack used by one
 * entry point with different access (one read, one read_write) cannot bind as two ranges of one
 * buffer (WebGPU's usage rules), so such an entry point is always packed.
 */
import { ARENA_KINDS, type ArenaKind, type ArenaKindName } from './arena-kinds.js';
import { usedBindings } from './wgsl-analysis.js';

/** First binding number of the packs' offset uniforms (under WebGPU's 1000 bindings a group). */
export const PACK_LAYOUT_BINDING = 900;

export interface PackMember {
  binding: number;
  name: string;
  member: string;
  slot: number;
  access: 'read' | 'read_write';
  element: string;
}

export interface PackDecl {
  name: string;
  kind: ArenaKindName;
  members: PackMember[];
}

export interface PackedBinding {
  /** The pack's storage binding (the lowest of its members'). */
  binding: number;
  /** Its offsets uniform. */
  layoutBinding: number;
  kind: ArenaKindName;
  name: string;
  /** Member bindings of the unpacked source that this pack replaces. */
  memberBindings: number[];
}

const DECLARATION = /^\s*@group\((\d+)\)\s*@binding\((\d+)\)\s*var<storage,\s*(read_write|read)>\s+(\w+)\s*:\s*array<([^;]+)>\s*;\s*\/\/\s*arena\s+(\w+)\.(\w+)(?:\s+(\w+))?/;

/** The packs a (preprocessed) source declares, by pack name. */
export function packDeclarations(source: string): Map<string, PackDecl> {
  const packs = new Map<string, PackDecl>();
  source.split('\n').forEach((line, index) => {
    const m = line.match(DECLARATION);
    if (!m) {
      if (/\/\/\s*arena\s/.test(line) && /@binding/.test(line)) throw new Error(`WGSL line ${index + 1}: malformed arena annotation: ${line.trim()}`);
      return;
    }
    const [, group, binding, access, name, element, kindName, member, packName] = m;
    if (group !== '0') throw new Error(`WGSL line ${index + 1}: arena members must be in group 0 (${name})`);
    if (!(kindName in ARENA_KINDS)) throw new Error(`WGSL line ${index + 1}: unknown arena kind "${kindName}" (${name})`);
    const kind = kindName as ArenaKindName;
    const spec: ArenaKind = ARENA_KINDS[kind];
    const slot = spec.members.indexOf(member);
    if (slot < 0) throw new Error(`WGSL line ${index + 1}: arena ${kind} has no member "${member}" (${name})`);
    if (element.trim() !== spec.element) throw new Error(`WGSL line ${index + 1}: ${name} is array<${element}> but arena ${kind} holds ${spec.element}`);
    const pack = packName ?? kind;
    let decl = packs.get(pack);
    if (!decl) packs.set(pack, (decl = { name: pack, kind, members: [] }));
    if (decl.kind !== kind) throw new Error(`WGSL line ${index + 1}: pack ${pack} mixes arena kinds ${decl.kind} and ${kind}`);
    decl.members.push({ binding: Number(binding), name, member, slot, access: access as PackMember['access'], element: spec.element });
  });
  return packs;
}

/**
 * Whether `entryPoint` must be packed: it uses more storage buffers than `maxStorageBuffers`, or
 * two members of one pack with different access.
 */
export function needsPacking(source: string, entryPoint: string, maxStorageBuffers: number): { packed: boolean; reason?: string; storageBuffers: number } {
  const packs = packDeclarations(source);
  const used = usedBindings(source, entryPoint, 0, 'storage');
  if (!packs.size) return { packed: false, storageBuffers: used.size };
  for (const decl of packs.values()) {
    const accesses = new Set(decl.members.filter((m) => used.has(m.binding)).map((m) => m.access));
    if (accesses.size > 1) return { packed: true, reason: `reads and writes members of ${decl.name}`, storageBuffers: used.size };
  }
  if (used.size > maxStorageBuffers) return { packed: true, reason: `${used.size} storage buffers > the device's ${maxStorageBuffers}`, storageBuffers: used.size };
  return { packed: false, storageBuffers: used.size };
}

/**
 * The packed source and where its packs bind. Given `entryPoint`, a pack holds only the members
 * that entry point uses; the others keep their own declarations (unused by it, but other entry
 * points of the module store to or loop over them, and WGSL checks every function: a
 * read_write binding's loads are never uniform, so a barrier behind a loop over one would not
 * compile).
 */
export function packSource(source: string, entryPoint?: string): { source: string; packs: PackedBinding[] } {
  const used = entryPoint ? usedBindings(source, entryPoint) : undefined;
  const decls = [...packDeclarations(source).values()]
    .map((decl) => ({ ...decl, members: decl.members.filter((m) => !used || used.has(m.binding)) }))
    .filter((decl) => decl.members.length);
  const lines = source.split('\n');
  const packs: PackedBinding[] = [];
  const members = new Map<string, { pack: string; slot: number }>();
  decls.forEach((decl, k) => {
    const binding = Math.min(...decl.members.map((m) => m.binding));
    const access = decl.members.some((m) => m.access === 'read_write') ? 'read_write' : 'read';
    const spec = ARENA_KINDS[decl.kind] as ArenaKind;
    const slots = Math.ceil(spec.members.length / 4);
    const layoutBinding = PACK_LAYOUT_BINDING + k;
    let placed = false;
    for (const member of decl.members) {
      const at = lines.findIndex((line) => { const m = line.match(DECLARATION); return m !== null && m[4] === member.name; });
      lines[at] = placed
        ? ''
        : `@group(0) @binding(${binding}) var<storage, ${access}> pack_${decl.name}: array<${spec.element}>; @group(0) @binding(${layoutBinding}) var<uniform> pack_${decl.name}_at: array<vec4u, ${slots}>;`;
      placed = true;
      if (members.has(member.name)) throw new Error(`WGSL: ${member.name} is declared twice`);
      members.set(member.name, { pack: decl.name, slot: member.slot });
    }
    packs.push({ binding, layoutBinding, kind: decl.kind, name: decl.name, memberBindings: decl.members.map((m) => m.binding) });
  });
  let text = lines.join('\n');
  for (const [name, { pack, slot }] of members) text = rewriteIndexing(text, name, `pack_${pack}`, `pack_${pack}_at[${Math.floor(slot / 4)}u].${'xyzw'[slot % 4]}`);
  return { source: text, packs };
}

/** `name[expr]` -> `target[offset + (expr)]` everywhere; any other use of `name` is an error. */
function rewriteIndexing(text: string, name: string, target: string, offset: string): string {
  const word = new RegExp(`(?<![\\w.])${name}\\b`, 'g');
  let out = '';
  let last = 0;
  for (let m = word.exec(text); m; m = word.exec(text)) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    if (text.slice(lineStart, m.index).includes('//')) continue; // in a comment
    let i = m.index + name.length;
    while (text[i] === ' ') i++;
    if (text[i] !== '[') {
      const line = text.slice(0, m.index).split('\n').length;
      throw new Error(`WGSL line ${line}: ${name} is used other than by indexing, so it cannot be packed`);
    }
    let depth = 1;
    let j = i + 1;
    for (; j < text.length && depth; j++) {
      if (text[j] === '[') depth++;
      else if (text[j] === ']') depth--;
    }
    if (depth) throw new Error(`WGSL: unbalanced brackets after ${name}`);
    out += `${text.slice(last, m.index)}${target}[${offset} + (${rewriteIndexing(text.slice(i + 1, j - 1), name, target, offset)})]`;
    last = j;
    word.lastIndex = j;
  }
  return out + text.slice(last);
}
