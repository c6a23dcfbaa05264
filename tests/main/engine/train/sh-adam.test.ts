import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { SH_ADAM_CASES, shAdamParity } from '../../../parity/sh-adam.parity.js';

describe('fused SH Adam (no stored SH gradient) takes the separate path\'s step, bit for bit, and the float64 Adam of its gradient', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    for (const c of SH_ADAM_CASES) {
      it(`${variant}: ${c.precision}${c.sparse ? ', sparse' : ''}${c.dcOnly ? ', DC-only steps' : ''}, ${c.count} splats, SH ${c.shDegree}/3`, async () => {
        const seed = freshSeed();
        const results = await shAdamParity(ctx, variant, seed, c);
        const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
        expect(failures, `seed ${seed}`).toEqual([]);
      });
    }
  }
});
