/**
 * The selection benchmark (`bench select`, docs/benchmarks.md): how long one selection takes on a
 * scene of `splats` (10M by default: issue 17's "10M splats must stay interactive"), per shape,
 * as the GPU's time for the one dispatch (timestamps where the device has them) and as the
 * viewer waits for it (write the request and the current mask, dispatch, read the new mask and
 * its count back). Optionally the floater cleanup's CPU time on the same scene. Deterministic
 * scene and shapes, so runs compare.
 */
import type { SelectionMode, SelectionShape } from '../../../shared/contract/edit-select.js';
import { median } from '../../../shared/math/median.js';
import { lowbias32 } from '../../../shared/random.js';
import { lookAt, type PinholeCamera } from '../../../shared/scene/camera.js';
import { emptySplats, type SplatSet } from '../../../shared/scene/splats.js';
import type { GpuContext } from '../gpu/context.js';
import { createStageTimer } from '../gpu/stage-timer.js';
import { computeCleanSelection, resolveCleanParams } from './clean.js';
import { GpuSelection } from './select.js';
import { emptyMask } from '../../../shared/edits/selection-mask.js';

export interface SelectBenchRow {
  shape: string;
  mode: SelectionMode;
  selected: number;
  /** Median GPU time of the dispatch. */
  kernel_ms: number;
  /** Median time the caller waits: request and current mask written, dispatch, mask and count read back. */
  round_trip_ms: number;
}

export interface SelectBenchResult {
  splats: number;
  width: number;
  height: number;
  timing: 'timestamps' | 'host';
  variant: string;
  /** Host -> GPU upload of the scene (once per scene). */
  upload_ms: number;
  rows: SelectBenchRow[];
  /** The slowest row's round trip: the frame time a selection costs at this size. */
  worst_round_trip_ms: number;
  /** computeCleanSelection at strength 0.5 without cameras (CPU), when asked. */
  clean_ms?: number;
  clean_selected?: number;
}

/** Deterministic uniform [0, 1) of counter i. */
const uniform = (i: number) => lowbias32((i ^ 0x85ebca6b) >>> 0) / 2 ** 32;

/** Splats in [-1, 1]^3 (a tenth of them spread 3x wider, like floaters), scales, opacities and colours from counters. */
export function selectBenchScene(count: number): SplatSet {
  const splats = emptySplats(count, 0);
  for (let i = 0; i < count; i++) {
    const spread = uniform(8 * i) < 0.1 ? 3 : 1;
    for (let k = 0; k < 3; k++) {
      splats.means[3 * i + k] = (uniform(8 * i + 1 + k) * 2 - 1) * spread;
      splats.logScales[3 * i + k] = -7 + 4 * uniform(8 * i + 4 + k);
      splats.sh[3 * i + k] = (uniform(8 * i + 7) + k / 3 - 0.5) * 2;
    }
    splats.quats[4 * i] = 1;
    splats.opacityLogits[i] = (uniform(8 * i + 3) * 2 - 1) * 6;
  }
  return splats;
}

export function selectBenchCamera(width: number, height: number): PinholeCamera {
  return { width, height, fx: 0.8 * width, fy: 0.8 * width, cx: width / 2, cy: height / 2, worldToCamera: lookAt([0.5, 1.2, -3], [0, 0, 0]) };
}

/** One shape of each kind, each taking a fair part of the view; the lasso has 200 points and the brush 64 circles. */
export function selectBenchShapes(width: number, height: number): { label: string; shape?: SelectionShape; mode: SelectionMode }[] {
  const solid = { centre: [0.1, -0.2, 0.3] as [number, number, number], halfSize: [0.5, 0.3, 0.7] as [number, number, number], rotation: [0.2, 0.3, 0.1, Math.sqrt(1 - 0.14)] as [number, number, number, number] };
  const lasso = Array.from({ length: 200 }, (_, k) => {
    const a = (2 * Math.PI * k) / 200;
    const r = (0.25 + 0.1 * Math.sin(7 * a)) * height;
    return [width / 2 + r * Math.cos(a), height / 2 + r * Math.sin(a)] as [number, number];
  });
  const circles = Array.from({ length: 64 }, (_, k) => ({ centre: [0.2 * width + (0.6 * width * k) / 63, height / 2 + 0.2 * height * Math.sin(k / 6)] as [number, number], radius: 30 }));
  return [
    { label: 'rect', mode: 'replace', shape: { kind: 'rect', min: [0.25 * width, 0.25 * height], max: [0.75 * width, 0.75 * height] } },
    { label: 'lasso (200 points)', mode: 'replace', shape: { kind: 'lasso', points: lasso } },
    { label: 'brush (64 circles)', mode: 'add', shape: { kind: 'brush', circles } },
    { label: 'box', mode: 'replace', shape: { kind: 'box', box: solid } },
    { label: 'ellipsoid', mode: 'subtract', shape: { kind: 'ellipsoid', ellipsoid: solid } },
    { label: 'opacity', mode: 'intersect', shape: { kind: 'opacity', min: 0, max: 0.2 } },
    { label: 'size', mode: 'replace', shape: { kind: 'size', min: 0.01, max: 0.05 } },
    { label: 'colour', mode: 'replace', shape: { kind: 'colour', rgb: [0.5, 0.69, 0.88], distance: 0.1 } },
    { label: 'invert', mode: 'invert' },
  ];
}

export async function benchSelect(ctx: GpuContext, options: { splats: number; width?: number; height?: number; warmup?: number; iterations?: number; clean?: boolean; onProgress?: (message: string) => void }): Promise<SelectBenchResult> {
  const width = options.width ?? 1920;
  const height = options.height ?? 1080;
  const warmup = options.warmup ?? 3;
  const iterations = options.iterations ?? 20;
  options.onProgress?.(`generating ${options.splats.toLocaleString()} splats`);
  const splats = selectBenchScene(options.splats);
  const camera = selectBenchCamera(width, height);
  const t0 = performance.now();
  const selection = await GpuSelection.create(ctx, splats);
  await ctx.device.queue.onSubmittedWorkDone();
  const uploadMs = performance.now() - t0;
  const timer = createStageTimer(ctx, 'bench.select');
  ctx.profiler.setMode('off');
  const rows: SelectBenchRow[] = [];
  // the current selection is some previous one: half the splats
  const current = emptyMask(options.splats).fill(0x55555555);
  current[current.length - 1] &= options.splats % 32 ? (1 << (options.splats % 32)) - 1 : ~0;
  try {
    for (const { label, shape, mode } of selectBenchShapes(width, height)) {
      options.onProgress?.(label);
      const request = { mode, shape, camera, current };
      const kernel: number[] = [];
      const trip: number[] = [];
      let selected = 0;
      for (let i = 0; i < warmup + iterations; i++) {
        const ms = await timer.time((c) => selection.encodeSelect(c, request));
        await ctx.device.queue.onSubmittedWorkDone();
        const start = performance.now();
        selected = (await selection.select(request)).count;
        const round = performance.now() - start;
        if (i >= warmup) {
          kernel.push(ms);
          trip.push(round);
        }
      }
      rows.push({ shape: label, mode, selected, kernel_ms: median(kernel), round_trip_ms: median(trip) });
    }
  } finally {
    selection.destroy();
    timer.destroy();
  }
  ctx.assertNoErrors('the selection benchmark');
  const result: SelectBenchResult = { splats: options.splats, width, height, timing: timer.timing, variant: ctx.info.variant, upload_ms: uploadMs, rows, worst_round_trip_ms: Math.max(...rows.map((r) => r.round_trip_ms)) };
  if (options.clean) {
    options.onProgress?.('floater cleanup (CPU)');
    const c0 = performance.now();
    const clean = computeCleanSelection(splats, { params: resolveCleanParams({ 'edit.cleanStrength': 0.5 }) });
    result.clean_ms = performance.now() - c0;
    result.clean_selected = clean.selection.length;
  }
  return result;
}
