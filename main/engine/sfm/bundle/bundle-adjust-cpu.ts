/**
 * Bundle adjustment on the CPU, float64: the spec's LM loop (lm-iteration.ts, the reference
 * composed) in the normalised frame (normalisation.ts), the result handed back in the input's.
 * The mapper takes it as a BundleAdjuster, interchangeable with the GPU solver.
 */
import { fromNormalisedFrame, normalisingSimilarity, toNormalisedFrame } from './normalisation.js';
import { initialLmState, lmIteration } from './lm-iteration.js';
import { BA_DEFAULTS, checkProblem, type BaControl, type BaIterationRecord, type BaOptions, type BaProblem, type BaResult, type BaStopReason } from './problem.js';
import { robustCost } from './reference.js';
import { MAX_DIAGONAL } from './robust-loss.js';

export { BA_DEFAULTS } from './problem.js';

export async function bundleAdjustCpu(problem: BaProblem, options: BaOptions = BA_DEFAULTS, control: BaControl = {}): Promise<BaResult> {
  checkProblem(problem);
  const started = performance.now();
  const similarity = normalisingSimilarity(problem.points);
  let current = toNormalisedFrame(problem, similarity);
  let state = initialLmState(options);
  const perIteration: BaIterationRecord[] = [];
  let reason: BaStopReason = 'max iterations';
  while (perIteration.length < options.maxIterations) {
    if (control.signal?.aborted) throw control.signal.reason ?? new Error('bundle-adjust-cpu.ts: cancelled');
    const step = lmIteration(current, state, options);
    if (step.converged) {
      reason = step.converged;
      break;
    }
    const record = { cost: step.cost, lambda: step.lambda, pcgIterations: step.pcgIterations, accepted: step.accepted };
    perIteration.push(record);
    control.onProgress?.(perIteration.length, record);
    current = step.problem;
    state = step.state;
    if (step.accepted && step.previousCost - step.cost < options.functionTolerance * step.previousCost) {
      reason = 'function tolerance';
      break;
    }
    // Ceres stops when its trust region falls below 1e-32: lambda past the diagonal's own ceiling.
    if (state.lambda > MAX_DIAGONAL) {
      reason = 'lambda too large';
      break;
    }
    // Let an abort (or the app's other work) in between iterations.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const adjusted = fromNormalisedFrame(current, similarity);
  return {
    problem: adjusted,
    initialCost: robustCost(problem, options),
    finalCost: robustCost(adjusted, options),
    iterations: perIteration.length,
    reason,
    perIteration,
    seconds: (performance.now() - started) / 1000,
  };
}
