import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { npyNumbers, npzArray, parseNpy, parseNpz, readNpz } from '../../../../main/engine/formats/npz.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { freshSeed, rng } from '../../../helpers/random.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const dataDir = resolve(repoRoot, '../shared/data');

/** A .npy file as numpy writes it: header padded with spaces to a multiple of 64, ending in \n. */
function npy(descr: string, shape: number[], data: Uint8Array, version = 1, fortran = false): Uint8Array {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shapeText}, }`;
  const prefix = version === 1 ? 10 : 12;
  header += ' '.repeat(63 - ((prefix + header.length) % 64)) + '\n';
  const out = new Uint8Array(prefix + header.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, header.length, true);
  else view.setUint32(8, header.length, true);
  out.set(new TextEncoder().encode(header), prefix);
  out.set(data, prefix + header.length);
  return out;
}

interface ZipInput {
  name: string;
  data: Uint8Array;
  method?: 0 | 8 | 12;
  /** Put the sizes and offset in a ZIP64 extra field, as numpy's force_zip64 does. */
  zip64?: boolean;
  flags?: number;
}

function zip(entries: ZipInput[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const method = e.method ?? 0;
    const payload = method === 8 ? deflateRawSync(e.data) : e.data;
    const name = new TextEncoder().encode(e.name);
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, e.flags ?? 0, true);
    lv.setUint16(8, method, true);
    lv.setUint32(14, crc32(e.data), true);
    lv.setUint32(18, payload.length, true);
    lv.setUint32(22, e.data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const extra = e.zip64 ? new Uint8Array(28) : new Uint8Array(0);
    if (e.zip64) {
      const ev = new DataView(extra.buffer);
      ev.setUint16(0, 1, true);
      ev.setUint16(2, 24, true);
      ev.setBigUint64(4, BigInt(e.data.length), true);
      ev.setBigUint64(12, BigInt(payload.length), true);
      ev.setBigUint64(20, BigInt(offset), true);
    }
    const c = new Uint8Array(46 + name.length + extra.length);
    const cv = new DataView(c.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, e.flags ?? 0, true);
    cv.setUint16(10, method, true);
    cv.setUint32(16, crc32(e.data), true);
    cv.setUint32(20, e.zip64 ? 0xffffffff : payload.length, true);
    cv.setUint32(24, e.zip64 ? 0xffffffff : e.data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint16(30, extra.length, true);
    cv.setUint32(42, e.zip64 ? 0xffffffff : offset, true);
    c.set(name, 46);
    c.set(extra, 46 + name.length);
    parts.push(local, payload);
    central.push(c);
    offset += local.length + payload.length;
  }
  const cdSize = central.reduce((s, c) => s + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of all) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function expectBadInput(run: () => unknown, pattern: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a bad_input error matching ${pattern}`).toBeInstanceOf(ArgonautError);
  expect((caught as ArgonautError).code).toBe('bad_input');
  expect((caught as ArgonautError).message).toMatch(/^data\.npz: /);
  expect((caught as ArgonautError).message).toMatch(pattern);
}

describe('npy arrays', () => {
  it('reads every supported dtype, versions 1.0 and 2.0, scalars and empty arrays', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const cases: [string, Float32Array | Float64Array | Uint8Array | Int32Array | BigInt64Array | Uint32Array][] = [
      ['<f4', Float32Array.from({ length: 12 }, () => rand() * 2 - 1)],
      ['<f8', Float64Array.from({ length: 12 }, () => rand() * 1e6)],
      ['<u1', Uint8Array.from({ length: 12 }, () => Math.floor(rand() * 256))],
      ['|u1', Uint8Array.from({ length: 12 }, () => Math.floor(rand() * 256))],
      ['<i4', Int32Array.from({ length: 12 }, () => Math.floor(rand() * 2 ** 32) - 2 ** 31)],
      ['<i8', BigInt64Array.from({ length: 12 }, () => BigInt(Math.floor(rand() * 2 ** 40)) - 2n ** 39n)],
      ['<u4', Uint32Array.from({ length: 12 }, () => Math.floor(rand() * 2 ** 32))],
    ];
    for (const [descr, data] of cases) {
      for (const version of [1, 2]) {
        for (const shape of [[12], [3, 4], [2, 3, 2]]) {
          const a = parseNpy(npy(descr, shape, bytesOf(data), version), 'data.npz', 'x.npy');
          expect(a.shape, `seed ${seed} ${descr} v${version}`).toEqual(shape);
          expect([...a.data], `seed ${seed} ${descr} v${version}`).toEqual([...data]);
        }
      }
    }
    const scalar = parseNpy(npy('<i8', [], bytesOf(new BigInt64Array([648n]))), 'data.npz');
    expect(scalar.shape).toEqual([]);
    expect([...npyNumbers(scalar, 'data.npz', 'width')]).toEqual([648]);
    expect(parseNpy(npy('<f4', [0, 3], new Uint8Array(0)), 'data.npz').data.length).toBe(0);
  });

  it('refuses what it does not support, naming the entry', () => {
    const f4 = bytesOf(new Float32Array([1, 2, 3, 4]));
    expectBadInput(() => parseNpy(new TextEncoder().encode('not numpy at all'), 'data.npz', 'a.npy'), /a\.npy: not a \.npy array \(wrong magic\)/);
    expectBadInput(() => parseNpy(npy('<f4', [4], f4, 3), 'data.npz', 'a.npy'), /unsupported \.npy format version 3\.0/);
    expectBadInput(() => parseNpy(npy('>f4', [4], f4), 'data.npz', 'a.npy'), /unsupported dtype '>f4'/);
    expectBadInput(() => parseNpy(npy('<f2', [8], f4), 'data.npz', 'a.npy'), /unsupported dtype '<f2'/);
    expectBadInput(() => parseNpy(npy('<f4', [2, 2], f4, 1, true), 'data.npz', 'a.npy'), /Fortran-order arrays are not supported/);
    expectBadInput(() => parseNpy(npy('<f4', [5], f4), 'data.npz', 'a.npy'), /truncated data \(expected 20 bytes for shape \(5\) of <f4, got 16\)/);
    expectBadInput(() => parseNpy(npy('<f4', [3], f4), 'data.npz', 'a.npy'), /4 unexpected bytes after the data/);
    const structured = npy('<f4', [4], f4);
    structured.set(new TextEncoder().encode("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }"), 10);
    expectBadInput(() => parseNpy(structured, 'data.npz', 'a.npy'), /structured dtypes are not supported/);
    expectBadInput(() => npyNumbers(parseNpy(npy('<i8', [1], bytesOf(new BigInt64Array([2n ** 60n]))), 'data.npz'), 'data.npz', 'big'), /does not fit a float64 exactly/);
  });
});

describe('npz archives', () => {
  it('reads stored, deflated and zip64 entries by name', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const means = Float32Array.from({ length: 3000 }, () => rand());
    const colors = Uint8Array.from({ length: 3000 }, () => Math.floor(rand() * 4)); // compressible
    const width = new BigInt64Array([648n]);
    const bytes = zip([
      { name: 'means3d.npy', data: npy('<f4', [1000, 3], bytesOf(means)), zip64: true },
      { name: 'colors.npy', data: npy('|u1', [1000, 3], colors), method: 8 },
      { name: 'width.npy', data: npy('<i8', [], bytesOf(width)) },
    ]);
    const arrays = parseNpz(bytes, 'data.npz');
    expect([...arrays.keys()]).toEqual(['means3d', 'colors', 'width']);
    expect([...npzArray(arrays, 'means3d', 'data.npz', [-1, 3], ['float32']).data], `seed ${seed}`).toEqual([...means]);
    expect([...npzArray(arrays, 'colors', 'data.npz', [1000, 3], ['uint8']).data], `seed ${seed}`).toEqual([...colors]);
    expect(npyNumbers(npzArray(arrays, 'width', 'data.npz', []), 'data.npz', 'width')[0]).toBe(648);
  });

  it('reports a missing array, a wrong shape or dtype', () => {
    const arrays = parseNpz(zip([{ name: 'a.npy', data: npy('<f4', [2, 2], bytesOf(new Float32Array(4))) }]), 'data.npz');
    expectBadInput(() => npzArray(arrays, 'b', 'data.npz'), /missing array b \(has a\)/);
    expectBadInput(() => npzArray(arrays, 'a', 'data.npz', [-1, 3]), /array a has shape \(2, 2\), expected \(\*, 3\)/);
    expectBadInput(() => npzArray(arrays, 'a', 'data.npz', undefined, ['uint8']), /array a has dtype float32, expected uint8/);
  });

  it('refuses corrupt or unsupported archives', () => {
    const entry = npy('<f4', [4], bytesOf(new Float32Array([1, 2, 3, 4])));
    expectBadInput(() => parseNpz(new TextEncoder().encode('just some text, no zip'), 'data.npz'), /not a zip archive/);
    const corrupt = zip([{ name: 'a.npy', data: entry }]);
    corrupt[30 + 5 + 100] ^= 0xff; // a data byte of the stored entry
    expectBadInput(() => parseNpz(corrupt, 'data.npz'), /zip entry a\.npy: CRC-32 mismatch/);
    expectBadInput(() => parseNpz(zip([{ name: 'a.npy', data: entry, method: 12 }]), 'data.npz'), /unsupported compression method 12/);
    expectBadInput(() => parseNpz(zip([{ name: 'a.npy', data: entry, flags: 1 }]), 'data.npz'), /zip entry a\.npy is encrypted/);
    expectBadInput(() => parseNpz(zip([{ name: 'a.txt', data: entry }]), 'data.npz'), /npz entry a\.txt is not a \.npy array/);
    const whole = zip([{ name: 'a.npy', data: entry }]);
    const cut = new Uint8Array([...whole.slice(0, 60), ...whole.slice(whole.length - 22 - 51)]);
    expectBadInput(() => parseNpz(cut, 'data.npz'), /truncated|corrupt|local header/);
    const broken = zip([{ name: 'a.npy', data: entry, method: 8 }]);
    broken.fill(0xff, 40, 60);
    expectBadInput(() => parseNpz(broken, 'data.npz'), /a\.npy/);
  });

  it.runIf(existsSync(resolve(dataDir, 'gsplat_test_garden/test_garden.npz')))('reads gsplat’s test_garden.npz (test data from ../shared/data)', async () => {
    const file = resolve(dataDir, 'gsplat_test_garden/test_garden.npz');
    const arrays = await readNpz(file);
    expect(npzArray(arrays, 'means3d', file, [138766, 3], ['float32']).data.length).toBe(138766 * 3);
    expect(npzArray(arrays, 'colors', file, [138766, 3], ['uint8']).data.length).toBe(138766 * 3);
    npzArray(arrays, 'viewmats', file, [3, 4, 4], ['float32']);
    const Ks = npzArray(arrays, 'Ks', file, [3, 3, 3], ['float32']);
    expect(Ks.data[0]).toBeCloseTo(480.61, 2);
    expect(npyNumbers(npzArray(arrays, 'width', file, []), file, 'width')[0]).toBe(648);
    expect(npyNumbers(npzArray(arrays, 'height', file, []), file, 'height')[0]).toBe(420);
  });
  if (!existsSync(resolve(dataDir, 'gsplat_test_garden/test_garden.npz'))) {
    console.log(`npz.test: skipping the test_garden.npz case: ${dataDir}/gsplat_test_garden/test_garden.npz is absent (test data lives outside the repository)`);
  }
});
