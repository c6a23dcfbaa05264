/**
 * One random problem loaded into the GPU stages and linearised there, beside the float64
 * reference's system at the same lambda (reference.ts), for the parity tests of the stages.
 */
import { expect } from 'vitest';
import type { GpuContext } from '../../../../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../../../../main/engine/gpu/kernels.js';
import { GpuBundleStages } from '../../../../../main/engine/sfm/bundle/gpu/gpu-bundle-stages.js';
import type { GpuBundleLayout } from '../../../../../main/engine/sfm/bundle/gpu/gpu-layout.js';
import { normalisingSimilarity, toNormalisedFrame } from '../../../../../main/engine/sfm/bundle/normalisation.js';
import type { BaOptions, BaProblem } from '../../../../../main/engine/sfm/bundle/problem.js';
import { linearise, schurSystem, type SchurSystem } from '../../../../../main/engine/sfm/bundle/reference.js';
import type { SyntheticProblemOptions } from '../../../../../main/engine/sfm/bundle/gpu/synthetic-problem.js';
import type { ParityResult } from '../../../../parity/types.js';
import { PARITY_OPTIONS, randomProblem, SMALL_PROBLEM } from './gpu-problems.js';

export interface StagesCase {
  stages: GpuBundleStages;
  layout: GpuBundleLayout;
  problem: BaProblem;
  system: SchurSystem;
  lambda: number;
}

/** Poisoned buffers, then linearise and the blocks at `lambda` (submitted); the reference's system beside. */
export async function linearisedCase(ctx: GpuContext, variant: KernelVariant, seed: number, lambda = 1e-3, options: BaOptions = PARITY_OPTIONS, shape: SyntheticProblemOptions = SMALL_PROBLEM): Promise<StagesCase> {
  const { start } = randomProblem(seed, shape);
  const problem = toNormalisedFrame(start, normalisingSimilarity(start.points));
  const stages = await GpuBundleStages.create(ctx, variant);
  const layout = stages.load(problem, options, true);
  stages.setLambda(lambda);
  const commands = ctx.commands('test.linearise');
  stages.linearise(commands);
  stages.blocks(commands);
  await commands.submit();
  return { stages, layout, problem, system: schurSystem(linearise(problem, options), lambda), lambda };
}

/** Asserts every result of a parity case, naming the quantity, its error and the seed. */
export function expectParity(results: readonly ParityResult[]): void {
  for (const r of results) expect(r.ok, `${r.name}: ${r.error} (tolerance ${r.tolerance}), seed ${r.seed}${r.detail ? `: ${r.detail}` : ''}`).toBe(true);
  expect(results.length).toBeGreaterThan(0);
}
