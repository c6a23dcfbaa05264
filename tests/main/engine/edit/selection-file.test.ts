import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeSelection, encodeSelection, readSelectionFile, selectionProblem, writeSelectionFile } from '../../../../main/engine/edit/selection-file.js';
import { tempDir } from '../../../helpers/datasets.js';
import { freshSeed, rng } from '../../../helpers/random.js';

function randomSelection(random: () => number, base: number, fraction: number): Uint32Array {
  const picked: number[] = [];
  for (let i = 0; i < base; i++) if (random() < fraction) picked.push(i);
  return Uint32Array.from(picked);
}

describe('selection files (.sel)', () => {
  const seed = freshSeed();

  it(`round-trips random selections through the file, byte layout as documented (seed ${seed})`, async () => {
    const random = rng(seed);
    const dir = await tempDir('sel');
    for (const [base, fraction] of [[0, 0.5], [1, 1], [1000, 0.3], [70_000, 0.01]] as const) {
      const indices = randomSelection(random, base, fraction);
      const file = path.join(dir, `s-${base}.sel`);
      await writeSelectionFile(file, indices, base);
      const bytes = readFileSync(file);
      expect(bytes.length).toBe(16 + 4 * indices.length);
      expect(bytes.subarray(0, 4).toString('latin1')).toBe('ASEL');
      expect([bytes.readUInt32LE(4), bytes.readUInt32LE(8), bytes.readUInt32LE(12)]).toEqual([1, base, indices.length]);
      if (indices.length) expect(bytes.readUInt32LE(16 + 4 * (indices.length - 1))).toBe(indices[indices.length - 1]);
      expect(Array.from(await readSelectionFile(file, { baseCount: base, count: indices.length }))).toEqual(Array.from(indices));
    }
  });

  it('refuses every corruption by name: magic, version, truncated, trailing, unsorted, repeated, out of range, wrong base or count', async () => {
    const dir = await tempDir('sel-bad');
    const good = encodeSelection(Uint32Array.of(2, 5, 9), 10);
    const patch = (edit: (v: DataView, b: Uint8Array) => void, bytes = Uint8Array.from(good)) => {
      edit(new DataView(bytes.buffer), bytes);
      return bytes;
    };
    const cases: [string, Uint8Array, RegExp][] = [
      ['magic', patch((_, b) => (b[0] = 'X'.charCodeAt(0))), /not a selection file: starts with "XSEL", expected "ASEL"/],
      ['version', patch((v) => v.setUint32(4, 2, true)), /selection file version 2; this build reads version 1/],
      ['short', good.subarray(0, 10), /not a selection file: 10 bytes, shorter than its 16-byte header \(truncated\?\)/],
      ['truncated', good.subarray(0, good.length - 2), /the header says 3 indices \(28 bytes\) but the file has 26 bytes \(truncated\)/],
      ['trailing', Uint8Array.from([...good, 0, 0, 0, 0]), /the header says 3 indices \(28 bytes\) but the file has 32 bytes \(trailing bytes\)/],
      ['unsorted', patch((v) => v.setUint32(20, 1, true)), /damaged selection: index 1 \(1\) does not follow index 0 \(2\): indices must be sorted and distinct/],
      ['repeated', patch((v) => v.setUint32(20, 2, true)), /damaged selection: index 1 \(2\) does not follow index 0 \(2\)/],
      ['range', patch((v) => v.setUint32(24, 10, true)), /damaged selection: index 2 is 10, not below the base's 10 splats/],
    ];
    for (const [name, bytes, message] of cases) {
      const file = path.join(dir, `${name}.sel`);
      writeFileSync(file, bytes);
      await expect(readSelectionFile(file, { baseCount: 10 }), name).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${message.source}`)) });
    }
    const file = path.join(dir, 'good.sel');
    writeFileSync(file, good);
    await expect(readSelectionFile(file, { baseCount: 11 })).rejects.toMatchObject({ code: 'bad_input', message: `${file}: the selection is of 10 splats but the edit list's base has 11` });
    await expect(readSelectionFile(file, { baseCount: 10, count: 4 })).rejects.toMatchObject({ message: `${file}: the selection holds 3 indices but the manifest records 4` });
    await expect(readSelectionFile(path.join(dir, 'missing.sel'), { baseCount: 10 })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('missing.sel: the selection file is missing') });
  });

  it('never writes an invalid selection', async () => {
    const dir = await tempDir('sel-write');
    const file = path.join(dir, 'x.sel');
    await expect(writeSelectionFile(file, Uint32Array.of(3, 1), 5)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('refusing to write the selection: index 1 (1) does not follow') });
    expect(() => readFileSync(file)).toThrow();
    expect(selectionProblem([0, 4], 4)).toBe("index 1 is 4, not below the base's 4 splats");
    expect(selectionProblem([], 0)).toBeUndefined();
    expect(() => decodeSelection(new Uint8Array(0), 'f.sel')).toThrow(/^f\.sel: not a selection file/);
  });
});
