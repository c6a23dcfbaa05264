import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePly, readPly, serializePly, writePly } from '../../../../main/engine/formats/ply.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { emptySplats, shCoefficientCount, type SplatSet } from '../../../../shared/scene/splats.js';
import { freshSeed, rng } from '../../../helpers/random.js';

/** Random finite float32 values over the whole range (random bit patterns, NaN/Inf redrawn). */
function randomSplats(rand: () => number, count: number, degree: number): SplatSet {
  const s = emptySplats(count, degree);
  for (const array of [s.means, s.logScales, s.quats, s.opacityLogits, s.sh]) {
    const bits = new Uint32Array(array.buffer, array.byteOffset, array.length);
    for (let j = 0; j < array.length; j++) {
      do bits[j] = (rand() * 2 ** 32) >>> 0;
      while (!Number.isFinite(array[j]));
    }
  }
  return s;
}

function bitsOf(a: Float32Array): number[] {
  return [...new Uint32Array(a.buffer, a.byteOffset, a.length)];
}

function expectSameBits(a: SplatSet, b: SplatSet, context: string): void {
  expect(b.count, context).toBe(a.count);
  expect(b.shDegree, context).toBe(a.shDegree);
  for (const field of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) expect(bitsOf(b[field]), `${context} ${field}`).toEqual(bitsOf(a[field]));
}

type Type = 'float' | 'double' | 'uchar' | 'int';
interface Column {
  name: string;
  type: Type;
}

function restNames(degree: number): string[] {
  return Array.from({ length: 3 * (shCoefficientCount(degree) - 1) }, (_, j) => `f_rest_${j}`);
}
function gsNames(degree: number): string[] {
  return ['x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2', ...restNames(degree), 'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3'];
}

/** A binary PLY with one vertex element of scalar columns; `rows` are values per column. */
function binaryPly(columns: Column[], rows: number[][], little = true, extraHeader: string[] = []): Uint8Array {
  const size: Record<Type, number> = { float: 4, double: 8, uchar: 1, int: 4 };
  const header = [
    'ply',
    `format ${little ? 'binary_little_endian' : 'binary_big_endian'} 1.0`,
    'comment made by a test',
    ...extraHeader,
    `element vertex ${rows.length}`,
    ...columns.map((c) => `property ${c.type} ${c.name}`),
    'end_header\n',
  ].join('\n');
  const head = new TextEncoder().encode(header);
  const stride = columns.reduce((s, c) => s + size[c.type], 0);
  const out = new Uint8Array(head.length + stride * rows.length);
  out.set(head);
  const view = new DataView(out.buffer, head.length);
  let at = 0;
  for (const row of rows) {
    columns.forEach((c, k) => {
      if (c.type === 'float') view.setFloat32(at, row[k], little);
      if (c.type === 'double') view.setFloat64(at, row[k], little);
      if (c.type === 'uchar') view.setUint8(at, row[k]);
      if (c.type === 'int') view.setInt32(at, row[k], little);
      at += size[c.type];
    });
  }
  return out;
}

/** Rows of a 3DGS vertex in the column order given, from a SplatSet (values as the layout stores them). */
function rowsFor(s: SplatSet, names: string[]): number[][] {
  const K = shCoefficientCount(s.shDegree);
  return Array.from({ length: s.count }, (_, i) =>
    names.map((name) => {
      const m = /^(\w+?)_?(\d*)$/.exec(name)!;
      if (name === 'x' || name === 'y' || name === 'z') return s.means[3 * i + 'xyz'.indexOf(name)];
      if (name.startsWith('f_dc_')) return s.sh[i * K * 3 + Number(m[2])];
      if (name.startsWith('f_rest_')) {
        const j = Number(name.slice(7));
        return s.sh[(i * K + 1 + (j % (K - 1))) * 3 + Math.floor(j / (K - 1))];
      }
      if (name === 'opacity') return s.opacityLogits[i];
      if (name.startsWith('scale_')) return s.logScales[3 * i + Number(m[2])];
      if (name.startsWith('rot_')) return s.quats[4 * i + Number(m[2])];
      return 7; // normals and extras
    }),
  );
}

function expectBadInput(run: () => unknown, pattern: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a bad_input error matching ${pattern}`).toBeInstanceOf(ArgonautError);
  const e = caught as ArgonautError;
  expect(e.code).toBe('bad_input');
  expect(e.message).toMatch(/^scene\.ply: /);
  expect(e.message).toMatch(pattern);
}

describe('PLY round trip', () => {
  for (const degree of [0, 1, 2, 3]) {
    it(`serialize -> parse is bit-exact, SH degree ${degree}`, () => {
      const seed = freshSeed();
      const s = randomSplats(rng(seed), 1 + Math.floor(rng(seed ^ 1)() * 40), degree);
      const bytes = serializePly(s);
      expectSameBits(s, parsePly(bytes, 'scene.ply'), `seed ${seed}`);
    });
  }

  it('writes the standard layout: header, float properties in order, zero normals, channel-major f_rest', () => {
    const s = emptySplats(2, 1);
    s.sh.set(Array.from({ length: 24 }, (_, j) => j));
    const bytes = serializePly(s);
    const text = new TextDecoder('latin1').decode(bytes);
    const headerEnd = text.indexOf('end_header\n') + 'end_header\n'.length;
    const header = text.slice(0, headerEnd).split('\n');
    expect(header.slice(0, 3)).toEqual(['ply', 'format binary_little_endian 1.0', 'element vertex 2']);
    expect(header.slice(3, -2).map((l) => l.replace('property float ', ''))).toEqual(gsNames(1));
    expect(bytes.length - headerEnd).toBe(2 * gsNames(1).length * 4);
    const row = new Float32Array(bytes.slice(headerEnd).buffer, 0, gsNames(1).length);
    // Splat 0: sh [k][c] = 3k + c; f_rest is R of k=1..3, then G, then B.
    expect([...row.slice(3, 6)]).toEqual([0, 0, 0]);
    expect([...row.slice(6, 9)]).toEqual([0, 1, 2]);
    expect([...row.slice(9, 18)]).toEqual([3, 6, 9, 4, 7, 10, 5, 8, 11]);
  });

  it('writePly is atomic and readPly reads it back; no temporary file is left', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'argonaut-ply-'));
    try {
      const seed = freshSeed();
      const path = join(dir, 'out.ply');
      await writeFile(path, 'old content');
      const s = randomSplats(rng(seed), 17, 3);
      await writePly(path, s);
      expectSameBits(s, await readPly(path), `seed ${seed}`);
      expect(await readdir(dir)).toEqual(['out.ply']);
      expect(new Uint8Array(await readFile(path))).toEqual(serializePly(s));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('readPly of a missing file is not_found, naming the path', async () => {
    await expect(readPly('/nonexistent/folder/x.ply')).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('/nonexistent/folder/x.ply') });
  });

  it('refuses to write NaN or inconsistent arrays', () => {
    const s = emptySplats(3, 1);
    s.quats[5] = NaN;
    expect(() => serializePly(s)).toThrow(/NaN\/Inf in quats of splat 1/);
    expect(() => serializePly({ ...emptySplats(3, 1), sh: new Float32Array(10) })).toThrow(/sh has 10 values, expected 36/);
  });
});

describe('PLY reading variants', () => {
  it('reads a hand-written ascii file: any property order, extras, no normals, degree 1', () => {
    const names = ['rot_0', 'rot_1', 'rot_2', 'rot_3', 'x', 'y', 'z', 'red', ...restNames(1), 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity', 'scale_0', 'scale_1', 'scale_2'];
    const text = [
      'ply',
      'format ascii 1.0',
      'comment hand-written',
      'element vertex 2',
      ...names.map((n) => (n === 'red' ? 'property uchar red' : `property ${n.startsWith('f_rest') ? 'double' : 'float'} ${n}`)),
      'element face 1',
      'property list uchar int vertex_indices',
      'end_header',
      '1 0 0 0  0.5 -1.25 3  255  0 1 2 3 4 5 6 7 8  0.1 0.2 0.3  -2  -4 -5 -6',
      '0.5 0.5 0.5 0.5  1e-3 2E2 -0  0  -1 -2 -3 -4 -5 -6 -7 -8 -9  1 2 3  4.5  0 0 0',
      '3 0 1 1',
      '',
    ].join('\n');
    const s = parsePly(new TextEncoder().encode(text), 'scene.ply');
    expect(s.count).toBe(2);
    expect(s.shDegree).toBe(1);
    expect([...s.means]).toEqual([0.5, -1.25, 3, 1e-3, 200, -0].map(Math.fround));
    expect([...s.quats]).toEqual([1, 0, 0, 0, 0.5, 0.5, 0.5, 0.5]);
    expect([...s.opacityLogits]).toEqual([-2, 4.5]);
    expect([...s.logScales]).toEqual([-4, -5, -6, 0, 0, 0]);
    // sh[k][c]: DC then f_rest channel-major (R: 0 1 2, G: 3 4 5, B: 6 7 8 for k = 1..3).
    expect([...s.sh.slice(0, 12)]).toEqual([0.1, 0.2, 0.3, 0, 3, 6, 1, 4, 7, 2, 5, 8].map(Math.fround));
    expect([...s.sh.slice(12, 24)]).toEqual([1, 2, 3, -1, -4, -7, -2, -5, -8, -3, -6, -9]);
  });

  it('reads big-endian, doubles, shuffled properties and extra elements the same as the standard file', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    for (const degree of [0, 2, 3]) {
      const s = randomSplats(rand, 9, degree);
      // Keep values exactly representable in both widths.
      const names = gsNames(degree).filter((n) => !n.startsWith('n'));
      for (let k = names.length - 1; k > 0; k--) {
        const j = Math.floor(rand() * (k + 1));
        [names[k], names[j]] = [names[j], names[k]];
      }
      const columns: Column[] = names.map((name) => ({ name, type: rand() < 0.5 ? 'double' : 'float' }));
      columns.splice(3, 0, { name: 'confidence', type: 'uchar' }, { name: 'id', type: 'int' });
      const rows = rowsFor(s, columns.map((c) => c.name));
      for (const little of [true, false]) {
        const bytes = binaryPly(columns, rows, little);
        expectSameBits(s, parsePly(bytes, 'scene.ply'), `seed ${seed} degree ${degree} little=${little}`);
      }
    }
  });

  it('skips elements before the vertex element (fixed and list records)', () => {
    const s = randomSplats(rng(freshSeed()), 3, 0);
    const names = gsNames(0);
    const head = [
      'ply',
      'format binary_little_endian 1.0',
      'element camera 2',
      'property float fx',
      'property uchar flag',
      'element tag 2',
      'property list uchar int ids',
      `element vertex 3`,
      ...names.map((n) => `property float ${n}`),
      'end_header\n',
    ].join('\n');
    const before = [
      ...new Uint8Array(new Float32Array([1]).buffer), 1,
      ...new Uint8Array(new Float32Array([2]).buffer), 2,
      2, ...new Uint8Array(new Int32Array([5, 6]).buffer),
      0,
    ];
    const rows = rowsFor(s, names).flat();
    const bytes = new Uint8Array([...new TextEncoder().encode(head), ...before, ...new Uint8Array(new Float32Array(rows).buffer)]);
    expectSameBits(s, parsePly(bytes, 'scene.ply'), 'elements before vertex');
  });
});

describe('malformed PLY files are bad_input naming the file and the problem', () => {
  const standard = (count = 2, degree = 0): Uint8Array => serializePly(emptySplats(count, degree));
  const withHeader = (bytes: Uint8Array, edit: (h: string) => string): Uint8Array => {
    const text = new TextDecoder('latin1').decode(bytes);
    const end = text.indexOf('end_header\n') + 'end_header\n'.length;
    const head = new TextEncoder().encode(edit(text.slice(0, end)));
    return new Uint8Array([...head, ...bytes.slice(end)]);
  };

  it('wrong magic', () => {
    expectBadInput(() => parsePly(new TextEncoder().encode('PK\u0003\u0004 not a ply'), 'scene.ply'), /wrong magic/);
    expectBadInput(() => parsePly(new Uint8Array(0), 'scene.ply'), /wrong magic/);
  });

  it('no end_header', () => {
    expectBadInput(() => parsePly(new TextEncoder().encode('ply\nformat ascii 1.0\nelement vertex 0\n'), 'scene.ply'), /no end_header/);
  });

  it('unsupported format and version', () => {
    expectBadInput(() => parsePly(withHeader(standard(), (h) => h.replace('binary_little_endian', 'binary_middle_endian')), 'scene.ply'), /unsupported PLY format "binary_middle_endian"/);
    expectBadInput(() => parsePly(withHeader(standard(), (h) => h.replace('1.0', '2.0')), 'scene.ply'), /unsupported PLY format version "2.0"/);
  });

  it('missing property X, for each required property', () => {
    for (const name of ['x', 'f_dc_2', 'opacity', 'scale_1', 'rot_3']) {
      expectBadInput(() => parsePly(withHeader(standard(), (h) => h.replace(`property float ${name}\n`, `property float unused_${name}\n`)), 'scene.ply'), new RegExp(`missing property ${name}\\b`));
    }
  });

  it('no vertex element', () => {
    expectBadInput(() => parsePly(withHeader(standard(0), (h) => h.replace('element vertex', 'element points')), 'scene.ply'), /no "element vertex"/);
  });

  it('unsupported number of f_rest, and gaps in their numbering', () => {
    const twelve = withHeader(standard(1, 1), (h) => h.replace('property float f_rest_8\n', 'property float f_rest_8\nproperty float f_rest_9\nproperty float f_rest_10\nproperty float f_rest_11\n'));
    expectBadInput(() => parsePly(twelve, 'scene.ply'), /unsupported number of f_rest properties: 12/);
    const gap = withHeader(standard(1, 1), (h) => h.replace('property float f_rest_4\n', 'property float f_rest_40\n'));
    expectBadInput(() => parsePly(gap, 'scene.ply'), /missing property f_rest_4\b/);
  });

  it('truncated body (expected N bytes, got M)', () => {
    const bytes = standard(3, 1); // 3 x 26 floats
    expectBadInput(() => parsePly(bytes.slice(0, bytes.length - 5), 'scene.ply'), /truncated body \(expected 312 bytes, got 307\)/);
    const absurd = withHeader(standard(3, 1), (h) => h.replace('element vertex 3', 'element vertex 3000000000'));
    expectBadInput(() => parsePly(absurd, 'scene.ply'), /truncated body \(expected 312000000000 bytes, got 312\)/);
    const ascii = new TextEncoder().encode(`ply\nformat ascii 1.0\nelement vertex 2\n${gsNames(0).map((n) => `property float ${n}`).join('\n')}\nend_header\n${'1.000 '.repeat(17)}\n${'1.000 '.repeat(10)}\n`);
    expectBadInput(() => parsePly(ascii, 'scene.ply'), /truncated body: vertex 1 ends before property scale_0/);
  });

  it('extra bytes after the last element', () => {
    expectBadInput(() => parsePly(new Uint8Array([...standard(2), 0, 0, 0, 0]), 'scene.ply'), /4 unexpected bytes after the vertex data/);
  });

  it('NaN/Inf in property X of vertex i (binary float, double overflow, ascii)', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const names = gsNames(0);
    const s = emptySplats(5, 0);
    const vertex = Math.floor(rand() * 5);
    const column = Math.floor(rand() * names.length);
    const name = names[column];
    const rows = rowsFor(s, names);
    const required = !name.startsWith('n');
    for (const bad of [NaN, Infinity, -Infinity]) {
      rows[vertex][column] = bad;
      const bytes = binaryPly(names.map((n) => ({ name: n, type: 'float' })), rows);
      if (required) expectBadInput(() => parsePly(bytes, 'scene.ply'), new RegExp(`NaN/Inf in property ${name} of vertex ${vertex}\\b`));
      else expect(parsePly(bytes, 'scene.ply').count, `seed ${seed}: ${name} is not read, so it may hold anything`).toBe(5);
    }
    rows[vertex][column] = 1e300;
    const doubles = binaryPly(names.map((n) => ({ name: n, type: 'double' })), rows);
    if (required) expectBadInput(() => parsePly(doubles, 'scene.ply'), new RegExp(`NaN/Inf in property ${name} of vertex ${vertex} \\(value 1e\\+300 overflows float32\\)`));
    const ascii = new TextEncoder().encode(`ply\nformat ascii 1.0\nelement vertex 2\n${names.map((n) => `property float ${n}`).join('\n')}\nend_header\n${'0 '.repeat(17)}\n${'0 '.repeat(6)}nan ${'0 '.repeat(10)}\n`);
    expectBadInput(() => parsePly(ascii, 'scene.ply'), /NaN\/Inf in property f_dc_0 of vertex 1/);
  });

  it('required properties that are not float or double', () => {
    expectBadInput(() => parsePly(withHeader(standard(), (h) => h.replace('property float opacity', 'property uchar opacity')), 'scene.ply'), /property opacity of element vertex is uint8; expected float or double/);
  });

  it('malformed header lines', () => {
    expectBadInput(() => parsePly(withHeader(standard(), (h) => h.replace('element vertex 2', 'element vertex two')), 'scene.ply'), /expected "element <name> <count>"/);
    expectBadInput(() => parsePly(withHeader(standard(), (h) => h.replace('property float x', 'property float128 x')), 'scene.ply'), /expected "property <type> <name>"/);
    expectBadInput(() => parsePly(withHeader(standard(), (h) => h.replace('property float y', 'property float x')), 'scene.ply'), /duplicate property x/);
    expectBadInput(() => parsePly(withHeader(standard(), (h) => h.replace('element vertex 2\n', 'element vertex 2\nbogus line\n')), 'scene.ply'), /unknown header keyword "bogus"/);
  });

  it('ascii values that are not numbers', () => {
    const text = `ply\nformat ascii 1.0\nelement vertex 1\n${gsNames(0).map((n) => `property float ${n}`).join('\n')}\nend_header\n0 0 zero ${'0 '.repeat(14)}\n`;
    expectBadInput(() => parsePly(new TextEncoder().encode(text), 'scene.ply'), /property z of vertex 0 is not a number \("zero"\)/);
  });
});
