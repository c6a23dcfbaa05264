import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { SELECT_CASES, selectParity } from '../../../parity/edit-select.parity.js';

describe('edit-select kernel matches the float64 reference on random scenes and cameras', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    for (const c of SELECT_CASES) {
      it(`${variant}: ${c.splats} splats, every shape and mode${c.workgroupSize ? `, workgroups of ${c.workgroupSize}` : ''}`, async () => {
        const seed = freshSeed();
        const results = await selectParity(ctx, variant, seed, c);
        const failed = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
        expect(failed, `seed ${seed}`).toEqual([]);
        expect(results.length).toBe(c.shapes.length * 4 + 3);
      });
    }
  }
});
