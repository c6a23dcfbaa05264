/**
 * Bundle adjustment on the GPU: the spec's Levenberg-Marquardt loop (lm-iteration.ts is its
 * float64 statement) with every linear-algebra step in WGSL (gpu-bundle-stages.ts) in float32, in
 * the normalised frame (lm-driver.ts, with the damping and stop rules both solvers share). One submit and ONE read-back per LM iteration: the
 * candidate parameters and a few scalars (PCG steps, the predicted reduction, |delta|, max |g|).
 * The host evaluates the candidate's robust cost in float64 from those parameters (reference.ts
 * robustCost: a projection per observation, cheaper to read than 2 residuals per observation,
 * and exactly the cost of the parameters the GPU holds), and decides accept / reject and when to
 * stop with the CPU solver's rules, so both report float64 costs of the same kind.
 */
import type { GpuContext } from '../../../gpu/context.js';
import type { KernelVariant } from '../../../gpu/kernels.js';
import { nextDamping, solveInNormalisedFrame, stopAfterStep, yieldBetweenIterations, type Damping } from '../lm-driver.js';
import { BA_DEFAULTS, copyProblem, type BundleAdjuster, type BaControl, type BaIterationRecord, type BaOptions, type BaProblem, type BaResult, type BaStopReason } from '../problem.js';
import { robustCost } from '../reference.js';
import { parameterNormOf } from '../lm-iteration.js';
import { unpackModel } from './gpu-layout.js';
import { GpuBundleStages, type StepReadback } from './gpu-bundle-stages.js';

export class GpuBundleAdjuster {
  private constructor(readonly stages: GpuBundleStages) {}

  /** Compiles the kernels once per GPU context; buffers grow to the largest problem solved. */
  static async create(ctx: GpuContext, variant?: KernelVariant): Promise<GpuBundleAdjuster> {
    return new GpuBundleAdjuster(await GpuBundleStages.create(ctx, variant));
  }

  destroy(): void {
    this.stages.destroy();
  }

  /** This solver as the mapper takes one (refineMapping), interchangeable with bundleAdjustCpu. */
  get adjust(): BundleAdjuster {
    return (problem, options, control) => this.solve(problem, options, control);
  }

  async solve(problem: BaProblem, options: BaOptions = BA_DEFAULTS, control: BaControl = {}): Promise<BaResult> {
    return solveInNormalisedFrame(problem, options, async (start) => {
      let current = start;
      const layout = this.stages.load(current, options);
      const perIteration: BaIterationRecord[] = [];
      let reason: BaStopReason = 'max iterations';
      let cost = robustCost(current, options);
      let damping: Damping = { lambda: options.initialLambda, nu: 2 };
      let linearised = false;
      while (perIteration.length < options.maxIterations) {
        if (control.signal?.aborted) throw control.signal.reason ?? new Error('bundle/gpu: cancelled');
        const step = await this.iterate(damping.lambda, !linearised, options.pcgMaxIterations);
        linearised = true;
        if (step.maxGradient < options.gradientTolerance) {
          reason = 'gradient tolerance';
          break;
        }
        if (step.stepNorm < options.parameterTolerance * (parameterNormOf(current, layout.reduced) + options.parameterTolerance)) {
          reason = 'parameter tolerance';
          break;
        }
        // the float64 cost decides (ba-spec), from the read-back candidate
        const candidate = copyProblem(current);
        unpackModel(step.candidate, layout, candidate);
        const newCost = robustCost(candidate, options);
        const accepted = newCost < cost;
        const record: BaIterationRecord = { cost: accepted ? newCost : cost, lambda: damping.lambda, pcgIterations: step.pcgIterations, accepted };
        perIteration.push(record);
        control.onProgress?.(perIteration.length, record);
        const previous = cost;
        damping = nextDamping(damping, accepted, step.predictedReduction > 0 ? (cost - newCost) / step.predictedReduction : 0);
        if (accepted) {
          current = candidate;
          cost = newCost;
          linearised = false;
          this.acceptCandidate();
        }
        const stop = stopAfterStep(accepted, previous, newCost, damping.lambda, options);
        if (stop) {
          reason = stop;
          break;
        }
        await yieldBetweenIterations();
      }
      this.stages.ctx.assertNoErrors('bundle adjustment');
      return { problem: current, reason, perIteration };
    });
  }

  /** One LM iteration's GPU work in one submit (linearise only at a new point), then its read-back. */
  async iterate(lambda: number, linearise: boolean, pcgIterations: number): Promise<StepReadback> {
    const s = this.stages;
    s.setLambda(lambda);
    const commands = s.ctx.commands('bundle.iteration');
    if (linearise) s.linearise(commands);
    s.blocks(commands);
    s.schur(commands, 1);
    s.pcg(commands, pcgIterations);
    s.backSubstitute(commands);
    s.applyStep(commands);
    await commands.submit();
    return s.readStep();
  }

  private acceptCandidate() {
    const commands = this.stages.ctx.commands('bundle.accept');
    this.stages.acceptCandidate(commands);
    void commands.submit();
  }
}
