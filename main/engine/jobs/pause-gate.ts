/**
 * Pausing a training job between two steps. `request()` asks for a pause (a call from the UI);
 * the job's loop calls `pass()` before every step, which, when a pause is pending, runs `enter`
 * (checkpoint, record the run as paused), waits until `release()` or the job's abort signal, and
 * runs `leave` unless the job was stopped meanwhile.
 */
export interface PauseHooks {
  enter(): Promise<void>;
  leave(): Promise<void>;
}

export class PauseGate {
  private pending = false;
  private wake?: () => void;

  /** A pause was asked for and the job has not resumed since. */
  get requested(): boolean {
    return this.pending;
  }

  request(): void {
    this.pending = true;
  }

  /** Lets a paused job go on (or cancels a pause it has not reached yet). */
  release(): void {
    this.pending = false;
    this.wake?.();
  }

  /** Forgets any request (a new run of the job's loop starts unpaused). */
  reset(): void {
    this.pending = false;
  }

  /** Before a step: pauses here while a pause is pending. Returns whether it paused. */
  async pass(signal: AbortSignal, hooks: PauseHooks): Promise<boolean> {
    if (!this.pending || signal.aborted) return false;
    await hooks.enter();
    await new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      signal.addEventListener('abort', done);
      if (!this.pending || signal.aborted) done();
    });
    this.pending = false;
    if (!signal.aborted) await hooks.leave();
    return true;
  }
}
