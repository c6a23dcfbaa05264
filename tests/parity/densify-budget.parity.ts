import { poisonBuffer, readBuffer } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { GpuSplats } from '../../main/engine/render/gpu-splats.js';
import { Adam } from '../../main/engine/train/adam.js';
import { AdcDensifier, ADC_DEFAULTS } from '../../main/engine/train/densify-adc.js';
import { emptySplats } from '../../shared/scene/splats.js';
import { rng } from '../helpers/random.js';
import { BUDGET_HISTOGRAM_BINS, budgetHistogram, budgetKey, budgetScore, budgetThreshold, keyEdgeDistance } from '../reference/densify-budget.js';
import type { ParityResult } from './types.js';
import { parameterGroups } from '../helpers/adam-groups.js';

export interface DensifyBudgetCase {
  splats: number;
}

export const DENSIFY_BUDGET_CASES: DensifyBudgetCase[] = [{ splats: 3000 }, { splats: 70_000 }];

/**
 * Budget-driven densification's selection (kernels/densify.wgsl budget_histogram,
 * budget_threshold, classify in budget mode) on fresh random statistics against the float64
 * reference: the histogram bin by bin (a splat whose score lies within float32 rounding of a bin
 * edge may land in the neighbour bin; those are allowed, nothing else), the threshold exactly
 * from the GPU's own histogram (integer work), and a whole refine growing exactly the splats at
 * or above it, then none at the cap. Outputs are poisoned first. `error` counts mismatches.
 */
export async function densifyBudgetParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: DensifyBudgetCase): Promise<ParityResult> {
  const random = rng(seed);
  const n = c.splats + Math.floor(random() * 1000);
  const capacity = 2 * n + 1024;
  const s = emptySplats(n, 0);
  const gradAcc = new Float32Array(n);
  const hits = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    s.means.set([random(), random(), random()], 3 * i);
    s.logScales.set([-5, -5.5, -6], 3 * i); // small: every grown splat is duplicated, none pruned for size
    s.quats.set([1, 0, 0, 0], 4 * i);
    s.opacityLogits[i] = random() * 8 - 3; // opacity 0.05 .. 0.99: none under the prune opacity
    hits[i] = random() < 0.1 ? 0 : 1 + Math.floor(random() * 30);
    gradAcc[i] = hits[i] * 10 ** (-6 + 4 * random());
  }
  const splats = GpuSplats.fromHost(ctx, s, capacity);
  const adam = await Adam.create(ctx);
  const groups = parameterGroups(adam, splats);
  const densifier = await AdcDensifier.create(ctx, capacity, { ...ADC_DEFAULTS, budget: 1 }, variant);
  const problems: string[] = [];
  try {
    const q = ctx.device.queue;
    q.writeBuffer(densifier.gradAcc, 0, gradAcc);
    q.writeBuffer(densifier.hits, 0, hits);
    poisonBuffer(ctx.device, densifier.counts);
    poisonBuffer(ctx.device, densifier.budgetHistogram);
    // counts[0] n; counts[3] poisoned, where the threshold goes
    q.writeBuffer(densifier.counts, 0, new Uint32Array([n]));
    const opacityLogits = new Float32Array(s.opacityLogits);
    const scores = Array.from({ length: n }, (_, i) => budgetScore(gradAcc[i], hits[i], opacityLogits[i]));
    const want = Math.floor(n * (0.05 + 0.3 * random()));

    const select = ctx.commands('budget');
    densifier.encodeBudgetThreshold(select, groups.opacityLogits, want);
    await select.submit();
    const histogram = new Uint32Array(await readBuffer(ctx.device, densifier.budgetHistogram, BUDGET_HISTOGRAM_BINS * 4));
    const threshold = new Uint32Array(await readBuffer(ctx.device, densifier.counts, 16))[3];
    const expected = budgetHistogram(scores.map(budgetKey));
    const nearEdge = scores.filter((score) => score > 0 && keyEdgeDistance(score) < 1e-5).length;
    let moved = 0;
    for (let b = 0; b < BUDGET_HISTOGRAM_BINS; b++) moved += Math.abs(histogram[b] - expected[b]);
    if (moved > 2 * nearEdge) problems.push(`histogram: ${moved / 2} splats in other bins, ${nearEdge} near an edge`);
    const total = histogram.reduce((a, x) => a + x, 0);
    const wantTotal = expected.reduce((a, x) => a + x, 0);
    if (total !== wantTotal) problems.push(`histogram holds ${total} splats, ${wantTotal} have a score`);
    if (threshold !== budgetThreshold(histogram, want)) problems.push(`threshold ${threshold}, the reference on the GPU's histogram ${budgetThreshold(histogram, want)}`);
    const selected = histogram.slice(threshold).reduce((a, x) => a + x, 0);
    if (Math.abs(selected - want) > Math.max(...histogram) / 2 + 1) problems.push(`selected ${selected} for ${want}: further than half a bin`);

    const refine = ctx.commands('refine');
    densifier.encodeRefine(refine, { step: 1000, seed: 1, sceneScale: 1, grow: true, pruneLarge: false, splatCount: splats.countBuffer, groups, budgetWant: want });
    await refine.submit();
    const count = new Uint32Array(await readBuffer(ctx.device, splats.countBuffer, 4))[0];
    if (count !== n + selected) problems.push(`refine: ${count} splats, want ${n} + ${selected}`);
    q.writeBuffer(densifier.gradAcc, 0, gradAcc);
    q.writeBuffer(densifier.hits, 0, hits);
    const capped = ctx.commands('capped');
    densifier.encodeRefine(capped, { step: 1100, seed: 1, sceneScale: 1, grow: false, pruneLarge: false, splatCount: splats.countBuffer, groups, budgetWant: want });
    await capped.submit();
    const after = new Uint32Array(await readBuffer(ctx.device, splats.countBuffer, 4))[0];
    if (after !== count) problems.push(`a refine at the cap changed the count ${count} -> ${after}`);
  } finally {
    densifier.destroy();
    splats.destroy();
  }
  return { name: `densify budget ${n} splats`, variant, seed, ok: problems.length === 0, error: problems.length, tolerance: 0, ...(problems.length ? { detail: problems.join('; ') } : {}) };
}
