/**
 * How often a job does something costly besides training (a live snapshot, a profile report):
 * never closer together than `minIntervalMs`, and, with a `budget`, spaced so that the measured
 * cost stays within that share of the time (a snapshot of 30 ms at budget 0.05 waits 600 ms).
 */
export interface ThrottleOptions {
  minIntervalMs: number;
  /** Largest share of the time the work may take (0..1]; none: only the interval counts. */
  budget?: number;
  /** When the first one is due (default: at once). */
  firstAtMs?: number;
}

/** What a throttle let through: how many, their total cost, and when (for tests and reports). */
export interface ThrottleStats {
  count: number;
  totalMs: number;
  /** Wall-clock times (Date.now()) of each. */
  times: number[];
}

export class Throttle {
  private nextAtMs: number;
  readonly stats: ThrottleStats = { count: 0, totalMs: 0, times: [] };

  constructor(private readonly options: ThrottleOptions) {
    this.nextAtMs = options.firstAtMs ?? 0;
  }

  /** Whether the work is due at `nowMs` (performance.now()). */
  due(nowMs: number): boolean {
    return nowMs >= this.nextAtMs;
  }

  /** Records work that ran from `startMs` to `endMs` and schedules the next. */
  done(startMs: number, endMs: number): void {
    const costMs = endMs - startMs;
    this.stats.count += 1;
    this.stats.totalMs += costMs;
    this.stats.times.push(Date.now());
    const spacing = this.options.budget ? costMs / this.options.budget : 0;
    this.nextAtMs = endMs + Math.max(this.options.minIntervalMs, spacing);
  }
}
