/** Metric columns shared by the harness page and its window.harness controls. */
import { markRaw, ref } from 'vue';
import { MetricSeriesSet } from '../../../renderer/src/stores/metric-series.js';

export const harnessMetrics = { set: markRaw(new MetricSeriesSet()), version: ref(0) };
