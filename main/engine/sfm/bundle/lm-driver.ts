/**
 * What both bundle-adjustment solvers share around their LM iteration (ba-spec: one formulation):
 * the problem checked and moved into the normalised frame and the result handed back in the
 * input's with its float64 costs, Nielsen's damping update, and the stop rules after an
 * iteration. The CPU solver (bundle-adjust-cpu.ts) steps with lm-iteration.ts, the GPU one
 * (gpu/gpu-bundle-adjuster.ts) with its kernels; neither repeats these.
 */
import { fromNormalisedFrame, normalisingSimilarity, toNormalisedFrame } from './normalisation.js';
import { checkProblem, type BaIterationRecord, type BaOptions, type BaProblem, type BaResult, type BaStopReason } from './problem.js';
import { robustCost } from './reference.js';
import { MAX_DIAGONAL } from './robust-loss.js';

export interface Damping {
  lambda: number;
  /** Nielsen's growth factor for the next rejection (2 after every accepted step). */
  nu: number;
}

/** After an accepted step lambda *= max(1/3, 1 - (2 rho - 1)^3) and nu = 2; after a rejected one lambda *= nu, nu *= 2. */
export function nextDamping(damping: Damping, accepted: boolean, gainRatio: number): Damping {
  if (accepted) return { lambda: damping.lambda * Math.max(1 / 3, 1 - (2 * gainRatio - 1) ** 3), nu: 2 };
  return { lambda: damping.lambda * damping.nu, nu: 2 * damping.nu };
}

/**
 * Whether to stop after an iteration that took a step: an accepted step that lowered the cost by
 * less than functionTolerance of it, or lambda past the diagonal's own ceiling (Ceres stops when
 * its trust region falls below 1e-32).
 */
export function stopAfterStep(accepted: boolean, previousCost: number, cost: number, lambda: number, options: Pick<BaOptions, 'functionTolerance'>): BaStopReason | undefined {
  if (accepted && previousCost - cost < options.functionTolerance * previousCost) return 'function tolerance';
  if (lambda > MAX_DIAGONAL) return 'lambda too large';
  return undefined;
}

/** Lets an abort (or the app's other work) in between iterations. */
export const yieldBetweenIterations = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `solve` on the checked problem in the normalised frame (normalisation.ts) and returns its
 * outcome in the input's frame, with both costs in float64.
 */
export async function solveInNormalisedFrame(
  problem: BaProblem,
  options: BaOptions,
  solve: (normalised: BaProblem) => Promise<{ problem: BaProblem; reason: BaStopReason; perIteration: BaIterationRecord[] }>,
): Promise<BaResult> {
  checkProblem(problem);
  const started = performance.now();
  const similarity = normalisingSimilarity(problem.points);
  const outcome = await solve(toNormalisedFrame(problem, similarity));
  const adjusted = fromNormalisedFrame(outcome.problem, similarity);
  return {
    problem: adjusted,
    initialCost: robustCost(problem, options),
    finalCost: robustCost(adjusted, options),
    iterations: outcome.perIteration.length,
    reason: outcome.reason,
    perIteration: outcome.perIteration,
    seconds: (performance.now() - started) / 1000,
  };
}
