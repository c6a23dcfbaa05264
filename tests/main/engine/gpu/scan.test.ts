import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { SCAN_CASES, exclusiveScanReference, scanParity } from '../../../parity/scan.parity.js';

describe('exclusive scan reference', () => {
  it('is an exclusive prefix sum with the total appended, mod 2^32', () => {
    expect([...exclusiveScanReference(new Uint32Array([3, 1, 4, 1, 5]))]).toEqual([0, 3, 4, 8, 9, 14]);
    expect([...exclusiveScanReference(new Uint32Array([0xffffffff, 2]))]).toEqual([0, 0xffffffff, 1]);
  });
});

describe('scan kernel matches the CPU reference on fresh random input', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    for (const c of SCAN_CASES) {
      it(`${variant}: n=${c.n} capacity=${c.capacity} max=${c.maxValue} wg=${c.workgroupSize ?? 256}x${c.itemsPerThread ?? 4}`, async () => {
        const seed = freshSeed();
        const result = await scanParity(ctx, variant, seed, c);
        expect(result.ok, `seed ${seed}: ${result.detail}`).toBe(true);
      });
    }
  }
});
