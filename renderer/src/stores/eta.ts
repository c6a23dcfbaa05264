/**
 * Time left in a training job, from the steps the studio has seen arrive. The engine's own
 * `etaS` (progress events) wins when it sends one; this estimate covers jobs whose events carry
 * none, and a job just resumed (the engine's rate still includes the pause).
 */

/** A progress sample: the step reached and when the studio saw it (ms, any monotonic clock). */
export interface StepSample {
  step: number;
  timeMs: number;
}

/** Samples kept: enough to smooth a noisy rate, few enough to follow a change of speed. */
export const ETA_WINDOW = 20;

/**
 * Seconds until `total` at the rate of the newest samples, or undefined when there is no rate
 * yet (fewer than two samples, no progress, no time elapsed) or nothing is left to do.
 */
export function estimateEtaS(samples: readonly StepSample[], total: number | undefined): number | undefined {
  if (!total || samples.length < 2) return undefined;
  const window = samples.slice(-ETA_WINDOW);
  const first = window[0];
  const last = window[window.length - 1];
  const steps = last.step - first.step;
  const elapsedMs = last.timeMs - first.timeMs;
  if (steps <= 0 || elapsedMs <= 0) return undefined;
  const left = total - last.step;
  if (left <= 0) return 0;
  return (left * elapsedMs) / steps / 1000;
}

/** A bounded list of samples; a step that goes backwards (a new run, a resume from a checkpoint) restarts it. */
export class StepRate {
  private samples: StepSample[] = [];

  add(step: number, timeMs: number): void {
    const last = this.samples.at(-1);
    if (last && step < last.step) this.samples = [];
    if (last && step === last.step) return;
    this.samples.push({ step, timeMs });
    if (this.samples.length > ETA_WINDOW) this.samples.splice(0, this.samples.length - ETA_WINDOW);
  }

  /** Forget the rate (after a pause, so the pause does not count as slow training). */
  reset(): void {
    this.samples = [];
  }

  etaS(total: number | undefined): number | undefined {
    return estimateEtaS(this.samples, total);
  }
}
