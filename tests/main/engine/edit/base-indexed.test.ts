import { describe, expect, it } from 'vitest';
import { baseIndexedSplats } from '../../../../main/engine/edit/base-indexed.js';
import { maskCount, maskHas } from '../../../../shared/edits/selection-mask.js';
import { randomSelectScene } from '../../../parity/edit-select.parity.js';
import { freshSeed, rng } from '../../../helpers/random.js';

describe('edited splats laid back at their base indices', () => {
  it('puts each kept splat at its base index and excludes every other one', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const base = 77;
    const keptToBase = Uint32Array.from(Array.from({ length: base }, (_, i) => i).filter(() => random() < 0.6));
    const kept = randomSelectScene(random, keptToBase.length);
    const { splats, exclude } = baseIndexedSplats(kept, keptToBase, base);
    expect(splats.count).toBe(base);
    expect(maskCount(exclude!), `seed ${seed}`).toBe(base - kept.count);
    const k = (kept.shDegree + 1) ** 2 * 3;
    keptToBase.forEach((b, i) => {
      expect(maskHas(exclude!, b)).toBe(false);
      expect(Array.from(splats.means.subarray(3 * b, 3 * b + 3))).toEqual(Array.from(kept.means.subarray(3 * i, 3 * i + 3)));
      expect(splats.opacityLogits[b]).toBe(kept.opacityLogits[i]);
      expect(Array.from(splats.sh.subarray(k * b, k * b + k))).toEqual(Array.from(kept.sh.subarray(k * i, k * i + k)));
    });
    expect(exclude![2] >>> (base & 31)).toBe(0); // no bit past the last base splat
  });

  it('passes a fully kept scene through and refuses indices past the base', () => {
    const kept = randomSelectScene(rng(3), 10);
    const all = Uint32Array.from({ length: 10 }, (_, i) => i);
    expect(baseIndexedSplats(kept, all, 10)).toEqual({ splats: kept });
    expect(() => baseIndexedSplats(kept, Uint32Array.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 12), 11)).toThrow(/kept splat 9 names base splat 12 of 11/);
  });
});
