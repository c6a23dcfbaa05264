import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { SORT_CASES, radixSortParity, stableSortReference } from '../../../parity/radix-sort.parity.js';

describe('stable sort reference', () => {
  it('sorts by the low bits only and keeps the order of equal keys', () => {
    const r = stableSortReference(new Uint32Array([0x105, 0x003, 0x205, 0x001]), new Uint32Array([0, 1, 2, 3]), 8);
    expect([...r.vals]).toEqual([3, 1, 0, 2]);
  });
});

describe('radix sort kernel matches a stable CPU sort on fresh random input', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    for (const c of SORT_CASES) {
      it(`${variant}: n=${c.n} capacity=${c.capacity} bits=${c.bits} distinct=${c.distinct}`, async () => {
        const seed = freshSeed();
        const result = await radixSortParity(ctx, variant, seed, c);
        expect(result.ok, `seed ${seed}: ${result.detail}`).toBe(true);
      });
    }
  }
});
