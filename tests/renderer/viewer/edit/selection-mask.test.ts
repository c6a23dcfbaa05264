import { describe, expect, it } from 'vitest';
import { maskFromIndices } from '../../../../shared/edits/selection-mask.js';
import { selectedCentres, tintSelected } from '../../../../renderer/src/viewer/edit/selection-mask.js';
import { freshSeed, rng } from '../../../helpers/random.js';

function randomBuffer(count: number, random: () => number): ArrayBuffer {
  const buffer = new ArrayBuffer(count * 32);
  const floats = new Float32Array(buffer);
  const bytes = new Uint8Array(buffer);
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 6; a++) floats[i * 8 + a] = random() * 4 - 2;
    for (let b = 24; b < 32; b++) bytes[i * 32 + b] = Math.floor(random() * 256);
  }
  return buffer;
}

describe('highlighting the selection in the splat data', () => {
  it('tints exactly the selected shown splats (through the base-index map) and leaves the rest byte-identical', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const count = 500;
    const buffer = randomBuffer(count, random);
    const original = new Uint8Array(buffer.slice(0));
    // shown splat i is base splat 2i + 1 (every other base splat deleted)
    const baseIndex = Uint32Array.from({ length: count }, (_, i) => 2 * i + 1);
    const chosenBase = [...new Set(Array.from({ length: 120 }, () => 2 * Math.floor(random() * count)))]; // even: never shown
    const shownChosen = [3, 77, 499].map((i) => baseIndex[i]);
    const mask = maskFromIndices([...chosenBase, ...shownChosen], 2 * count + 1);
    const { buffer: out, tinted } = tintSelected(buffer, count, mask, baseIndex, [255, 0, 0, 255], 1);
    expect(tinted, `seed ${seed}`).toBe(3);
    const bytes = new Uint8Array(out);
    expect(new Uint8Array(buffer)).toEqual(original); // the input is not modified
    for (let i = 0; i < count; i++) {
      const same = bytes.subarray(i * 32, i * 32 + 32).every((b, k) => b === original[i * 32 + k]);
      if ([3, 77, 499].includes(i)) {
        expect([...bytes.subarray(i * 32 + 24, i * 32 + 27)]).toEqual([255, 0, 0]);
        expect(bytes[i * 32 + 27]).toBeGreaterThanOrEqual(102);
        expect([...bytes.subarray(i * 32, i * 32 + 24)]).toEqual([...original.subarray(i * 32, i * 32 + 24)]); // geometry untouched
      } else expect(same, `splat ${i}`).toBe(true);
    }
  });

  it('hands back the same buffer when nothing shown is selected, and refuses a short base map', () => {
    const buffer = randomBuffer(10, rng(1));
    expect(tintSelected(buffer, 10, new Uint32Array(1), undefined).buffer).toBe(buffer);
    expect(() => tintSelected(buffer, 10, new Uint32Array(1), new Uint32Array(5))).toThrow(/10 splats shown but 5 base indices/);
  });

  it('collects the centres of the selected shown splats', () => {
    const buffer = randomBuffer(40, rng(2));
    const floats = new Float32Array(buffer);
    const centres = selectedCentres(buffer, 40, maskFromIndices([5, 39], 40), undefined);
    expect([...centres]).toEqual([floats[40], floats[41], floats[42], floats[39 * 8], floats[39 * 8 + 1], floats[39 * 8 + 2]]);
  });
});

describe('the incremental highlighter', () => {
  it('matches a fresh tint after every change of a random sequence of selections, touching only what changed (fresh seed)', async () => {
    const { SelectionHighlighter } = await import('../../../../renderer/src/viewer/edit/selection-mask.js');
    const seed = freshSeed();
    const random = rng(seed);
    const count = 700;
    const buffer = randomBuffer(count, random);
    const original = new Uint8Array(buffer.slice(0));
    const baseIndex = Uint32Array.from({ length: count }, (_, i) => 3 * i + (i % 3)); // a sparse, monotone map
    const baseCount = 3 * count;
    const highlighter = new SelectionHighlighter();
    let previous = new Set<number>();
    for (let step = 0; step < 12; step++) {
      const chosen = new Set(Array.from({ length: Math.floor(random() * 400) }, () => Math.floor(random() * baseCount)));
      const mask = maskFromIndices([...chosen], baseCount);
      const tint = step === 7 ? ([0, 255, 0, 255] as const) : ([255, 196, 0, 255] as const);
      const out = new Uint8Array(highlighter.update({ buffer, count, baseIndex }, mask, tint));
      const expected = new Uint8Array(tintSelected(buffer, count, mask, baseIndex, tint).buffer);
      expect(out, `seed ${seed}, step ${step}`).toEqual(expected.subarray(0, count * 32));
      if (step !== 7 && step !== 8) {
        const shownBases = new Set(baseIndex);
        const flipped = [...new Set([...chosen, ...previous])].filter((b) => chosen.has(b) !== previous.has(b) && shownBases.has(b)).length;
        expect(highlighter.lastChanged, `seed ${seed}, step ${step}`).toBe(flipped);
      }
      previous = chosen;
    }
    expect(new Uint8Array(buffer)).toEqual(original); // the source is never written
  });
});
