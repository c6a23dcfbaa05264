import { describe, expect, it } from 'vitest';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { GpuSelection } from '../../../../main/engine/edit/select.js';
import { selectReference } from '../../../../main/engine/edit/select-reference.js';
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

describe('screen shapes never select what is behind the viewer', async () => {
  const ctx = await testGpu();
  it('a rect over the whole image takes the splats in front and none behind (whose mirror image lands inside)', async () => {
    const splats = emptySplats(64, 0);
    // pairs: (x, y, z) in front and (-x, -y, -z) behind, which projects to the same pixel
    for (let i = 0; i < 32; i++) {
      const p = [((i % 8) - 3.5) * 0.1, (Math.floor(i / 8) - 1.5) * 0.1, 1 + i * 0.05];
      splats.means.set(p, 3 * i);
      splats.means.set(p.map((x) => -x), 3 * (i + 32));
    }
    const camera = { width: 100, height: 100, fx: 80, fy: 80, cx: 50, cy: 50, worldToCamera: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] };
    const request = { mode: 'replace' as const, shape: { kind: 'rect' as const, min: [0, 0] as [number, number], max: [100, 100] as [number, number] }, camera };
    const selection = await GpuSelection.create(ctx, splats);
    const got = await selection.select(request, { poison: true });
    selection.destroy();
    expect(Array.from(got.mask)).toEqual([0xffffffff, 0]);
    expect(Array.from(selectReference(splats, request).mask)).toEqual([0xffffffff, 0]);
  });
});
