/**
 * Training metrics as growing columns (step, value) per metric key, outside Vue's reactivity:
 * thousands of points would otherwise each become a proxy. Readers watch the store's `version`
 * counter and copy only what they have not seen (`series.steps.length` past their last index);
 * `generation` changes when the columns are cleared for a new job.
 */
import type { MetricKey, MetricValues } from '../../../shared/contract/train-metrics.js';

export interface MetricSeries {
  key: string;
  steps: number[];
  values: number[];
}

/** Metric keys the charts and the test scores show: names of the contract's one metric tuple (shared/contract/train-metrics.ts). */
export const METRIC_KEYS = { loss: 'loss', psnr: 'psnr', splatCount: 'splats', testPsnr: 'testPsnr', testCcPsnr: 'testCcPsnr', testSsim: 'testSsim' } as const satisfies Record<string, MetricKey>;

export class MetricSeriesSet {
  private readonly byKey = new Map<string, MetricSeries>();
  generation = 0;

  /** Appends one step's values; a step not after the last one of a metric is ignored (duplicates, replays). */
  append(step: number, values: Readonly<MetricValues>): void {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined || !Number.isFinite(value)) continue;
      let series = this.byKey.get(key);
      if (!series) this.byKey.set(key, (series = { key, steps: [], values: [] }));
      const last = series.steps.at(-1);
      if (last !== undefined && step <= last) continue;
      series.steps.push(step);
      series.values.push(value);
    }
  }

  get(key: string): MetricSeries | undefined {
    return this.byKey.get(key);
  }

  keys(): string[] {
    return [...this.byKey.keys()];
  }

  /** The latest value of a metric, if any. */
  latest(key: string): number | undefined {
    return this.byKey.get(key)?.values.at(-1);
  }

  clear(): void {
    this.byKey.clear();
    this.generation++;
  }
}
