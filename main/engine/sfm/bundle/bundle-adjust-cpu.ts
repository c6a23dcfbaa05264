/**
 * Bundle adjustment on the CPU, float64: the spec's LM loop (lm-iteration.ts, the reference
 * composed) in the normalised frame (lm-driver.ts), the result handed back in the input's.
 * The mapper takes it as a BundleAdjuster, interchangeable with the GPU solver.
 */
import { solveInNormalisedFrame, stopAfterStep, yieldBetweenIterations } from './lm-driver.js';
import { initialLmState, lmIteration } from './lm-iteration.js';
import { BA_DEFAULTS, type BaControl, type BaIterationRecord, type BaOptions, type BaProblem, type BaResult, type BaStopReason } from './problem.js';

export { BA_DEFAULTS } from './problem.js';

export async function bundleAdjustCpu(problem: BaProblem, options: BaOptions = BA_DEFAULTS, control: BaControl = {}): Promise<BaResult> {
  return solveInNormalisedFrame(problem, options, async (start) => {
    let current = start;
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
      const stop = stopAfterStep(step.accepted, step.previousCost, step.cost, state.lambda, options);
      if (stop) {
        reason = stop;
        break;
      }
      await yieldBetweenIterations();
    }
    return { problem: current, reason, perIteration };
  });
}
