import { describe, expect, it } from 'vitest';
import { checkMask, emptyMask, indicesFromMask, maskCount, maskFromIndices, maskHas, maskWords } from '../../../shared/edits/selection-mask.js';
import { freshSeed, rng } from '../../helpers/random.js';

describe('selection bitmasks and index lists', () => {
  it('round-trip random selections (sorted, distinct) and count their bits', () => {
    const seed = freshSeed();
    const random = rng(seed);
    for (const count of [1, 31, 32, 33, 1000, 65_537]) {
      const chosen = new Set<number>();
      const density = random();
      for (let i = 0; i < count; i++) if (random() < density) chosen.add(i);
      const shuffled = [...chosen].sort(() => random() - 0.5);
      const mask = maskFromIndices([...shuffled, ...shuffled.slice(0, 3)], count);
      expect(mask.length, `seed ${seed}`).toBe(maskWords(count));
      expect(maskCount(mask)).toBe(chosen.size);
      const indices = indicesFromMask(mask);
      expect(Array.from(indices)).toEqual([...chosen].sort((a, b) => a - b));
      for (let i = 0; i < Math.min(count, 200); i++) expect(maskHas(mask, i)).toBe(chosen.has(i));
      expect(() => checkMask(mask, count, 'm')).not.toThrow();
    }
  });

  it('handles bit 31 (the sign bit) of every word', () => {
    const mask = maskFromIndices([31, 63, 0], 64);
    expect(Array.from(indicesFromMask(mask))).toEqual([0, 31, 63]);
    expect(maskCount(mask)).toBe(3);
  });

  it('refuses indices outside the splats and masks of the wrong size, by name', () => {
    expect(() => maskFromIndices([5, 10], 10)).toThrow(/index 10 \(entry 1\) is outside the 10 splats/);
    expect(() => maskFromIndices([-1], 10)).toThrow(/index -1/);
    expect(() => checkMask(emptyMask(64), 65, 'current selection')).toThrow(/current selection: 2 words, expected 3/);
    const tail = emptyMask(40);
    tail[1] = 1 << 9; // splat 41 of 40
    expect(() => checkMask(tail, 40, 'exclude mask')).toThrow(/exclude mask: bits set past splat 39/);
  });
});
