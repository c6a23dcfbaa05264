/**
 * The parity suite outside vitest, for a GPU machine without npm (docs/gpu-machine.md): the same
 * cases as the vitest files (tests/parity/*.parity.ts), for every capability variant the device
 * has, with fresh seeds. Prints a table; writes JSON with --out FILE. Exit code 1 on any failure.
 *   node out/gpu/runner.mjs [--out results.json] [--only scan,sort,loss,colour,raster,profiler,mesh,appearance,sift,match,bundle,select,densify]
 */
import { writeFileSync } from 'node:fs';
import { openGpu } from '../../main/engine/gpu/context.js';
import { BUILD_COMMIT } from '../../shared/version.js';
import { freshSeed } from '../helpers/random.js';
import { APPEARANCE_CASES, appearanceParity } from '../parity/appearance.parity.js';
import { bundleLmIterationParity, bundleSolveParity } from '../parity/bundle-solve.parity.js';
import { BUNDLE_SHAPES, bundleCameraBlocksParity, bundleLineariseParity, bundlePcgParity, bundlePcgStopParity, bundlePointBlocksParity, bundleSchurParity } from '../parity/bundle-stages.parity.js';
import { COLOUR_CORRECT_CASES, colourCorrectParity } from '../parity/colour-correct.parity.js';
import { DENSIFY_BUDGET_CASES, densifyBudgetParity } from '../parity/densify-budget.parity.js';
import { SELECT_CASES, selectParity } from '../parity/edit-select.parity.js';
import { lossParity } from '../parity/loss.parity.js';
import { MATCH_CASES, matchParity } from '../parity/match.parity.js';
import { rayDepthEntryParity, rayDepthLoopParity, rayDepthPlaneParity } from '../parity/mesh-depth.parity.js';
import { meshVisibilityParity } from '../parity/mesh-visibility.parity.js';
import { MESH_CASES, marchingCubesParity, tsdfParity } from '../parity/mesh.parity.js';
import { profileScans } from '../parity/profiler.parity.js';
import { BIG_SPLAT_CASE, RASTER_CASES, rasterParity } from '../parity/rasterize.parity.js';
import { SORT_CASES, radixSortParity } from '../parity/radix-sort.parity.js';
import { SCAN_CASES, scanParity } from '../parity/scan.parity.js';
import { SH_ADAM_CASES, shAdamParity } from '../parity/sh-adam.parity.js';
import { SIFT_CASES, siftParity } from '../parity/sift.parity.js';
import type { ParityResult } from '../parity/types.js';

const args = process.argv.slice(2);
const outFile = args.includes('--out') ? args[args.indexOf('--out') + 1] : undefined;
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',')) : undefined;
const want = (group: string) => !only || only.has(group);

const ctx = await openGpu({ validate: true });
console.log(`adapter: ${ctx.info.adapter.name} (${ctx.info.backend}); features: ${ctx.info.features.join(', ')}`);
const variants = ctx.hasSubgroups ? (['portable', 'subgroup'] as const) : (['portable'] as const);
const results: (ParityResult & { ms: number })[] = [];
async function run(fn: () => Promise<ParityResult | ParityResult[]>) {
  const t0 = performance.now();
  let out: ParityResult[];
  try {
    const r = await fn();
    out = Array.isArray(r) ? r : [r];
  } catch (error) {
    out = [{ name: 'exception', variant: '?', seed: 0, ok: false, error: NaN, tolerance: 0, detail: String((error as Error).stack ?? error) }];
  }
  const ms = performance.now() - t0;
  for (const r of out) {
    results.push({ ...r, ms });
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.variant.padEnd(8)} ${r.name}  err ${Number.isFinite(r.error) ? r.error.toExponential(2) : r.error} (tol ${r.tolerance})${r.ok ? '' : `  seed ${r.seed}: ${r.detail}`}`);
  }
}

for (const variant of variants) {
  if (want('scan')) for (const c of SCAN_CASES) await run(() => scanParity(ctx, variant, freshSeed(), c));
  if (want('sort')) for (const c of SORT_CASES) await run(() => radixSortParity(ctx, variant, freshSeed(), c));
  if (want('raster')) for (const c of RASTER_CASES) await run(() => rasterParity(ctx, variant, freshSeed(), c));
  if (want('raster') && variant === 'subgroup') for (const c of RASTER_CASES.filter((x) => !x.outputs)) await run(() => rasterParity(ctx, variant, freshSeed(), c, { backwardReduce: 'cas' }));
  if (want('raster') && variant === 'subgroup') for (const c of RASTER_CASES) await run(() => rasterParity(ctx, variant, freshSeed(), c, { backwardPixels: 2 }));
  if (want('raster')) for (const c of RASTER_CASES) await run(() => rasterParity(ctx, variant, freshSeed(), c, { bigSplat: 1 }));
  if (want('raster')) for (const c of RASTER_CASES) await run(() => rasterParity(ctx, variant, freshSeed(), c, { cameraGrads: true }));
  if (want('raster')) for (const c of RASTER_CASES) for (const visibleCapacity of ['exact', 'half'] as const) await run(() => rasterParity(ctx, variant, freshSeed(), c, { visibleCapacity }));
  if (want('raster')) for (const c of RASTER_CASES) await run(() => rasterParity(ctx, variant, freshSeed(), c, { mean2dGrads: false }));
  // gather's segmented sum: chunks of 64 records (many splats cross a border), and splats over every tile of a big image
  if (want('raster')) for (const c of RASTER_CASES) await run(() => rasterParity(ctx, variant, freshSeed(), c, { bigSplat: 1, gatherItems: 1, workgroupSize: 64 }));
  if (want('raster')) for (const options of [{}, { gatherItems: 1, workgroupSize: 64 }, ...(variant === 'subgroup' ? [{ backwardPixels: 2 as const }] : [])]) await run(() => rasterParity(ctx, variant, freshSeed(), BIG_SPLAT_CASE, options));
  if (want('sh-adam')) for (const c of SH_ADAM_CASES) await run(() => shAdamParity(ctx, variant, freshSeed(), c));
  if (want('appearance')) for (const c of APPEARANCE_CASES) await run(() => appearanceParity(ctx, variant, freshSeed(), c));
  if (want('sift')) for (const c of SIFT_CASES) await run(() => siftParity(ctx, variant, freshSeed(), c));
  if (want('match')) for (const c of MATCH_CASES) await run(() => matchParity(ctx, variant, freshSeed(), c));
  // densify has no subgroup code either; the budget selection runs in both, as training would
  if (want('densify')) for (const c of DENSIFY_BUDGET_CASES) await run(() => densifyBudgetParity(ctx, variant, freshSeed(), c));
  // edit-select has no subgroup code; both variants run it anyway, as the app would
  if (want('select')) for (const c of SELECT_CASES) await run(() => selectParity(ctx, variant, freshSeed(), c));
  if (want('bundle')) {
    await run(() => bundleLineariseParity(ctx, variant, freshSeed()));
    await run(() => bundlePointBlocksParity(ctx, variant, freshSeed()));
    for (const shape of BUNDLE_SHAPES) await run(() => bundleCameraBlocksParity(ctx, variant, freshSeed(), shape));
    for (const shape of BUNDLE_SHAPES) await run(() => bundleSchurParity(ctx, variant, freshSeed(), shape));
    await run(() => bundlePcgParity(ctx, variant, freshSeed()));
    await run(() => bundlePcgStopParity(ctx, variant, freshSeed()));
    await run(() => bundleLmIterationParity(ctx, variant, freshSeed()));
    await run(() => bundleSolveParity(ctx, variant, freshSeed()));
  }
}
// Mesh kernels have one (portable) variant; the carve cases compile tsdf.wgsl for each.
if (want('mesh')) {
  for (const c of MESH_CASES) await run(() => marchingCubesParity(ctx, freshSeed(), c));
  for (const c of MESH_CASES) await run(() => tsdfParity(ctx, freshSeed(), c));
  await run(() => tsdfParity(ctx, freshSeed(), MESH_CASES[1], { depthMode: 'direct', carve: false, depthStride: 4 }));
  for (const variant of variants) for (const c of MESH_CASES.slice(1)) await run(() => tsdfParity(ctx, freshSeed(), c, { views: 5, imageAlpha: true, carveVotes: 2, variant }));
  for (const variant of variants) await run(() => meshVisibilityParity(ctx, freshSeed(), { views: 4, variant }));
  await run(() => meshVisibilityParity(ctx, freshSeed(), { depthMode: 'direct', depthStride: 4 }));
  await run(() => rayDepthLoopParity(ctx, freshSeed(), 20_000));
  await run(() => rayDepthPlaneParity(ctx, freshSeed()));
  await run(() => rayDepthEntryParity(ctx, freshSeed()));
}
if (want('loss')) {
  for (const [w, h, padding] of [[16, 16, 'same'], [37, 29, 'same'], [200, 150, 'same'], [37, 29, 'valid'], [200, 150, 'valid']] as const) await run(() => lossParity(ctx, freshSeed(), w, h, padding));
  for (const [w, h, padding] of [[37, 29, 'same'], [200, 150, 'same'], [200, 150, 'valid']] as const) await run(() => lossParity(ctx, freshSeed(), w, h, padding, true));
  for (const [w, h, padding, masked] of [[200, 150, 'valid', false], [200, 150, 'same', true]] as const) await run(() => lossParity(ctx, freshSeed(), w, h, padding, masked, true));
}
if (want('colour')) for (const c of COLOUR_CORRECT_CASES) await run(() => colourCorrectParity(ctx, freshSeed(), c));
if (want('profiler')) {
  await run(async () => {
    const { report, dispatches } = await profileScans({}, 4_000_000, 3);
    const calls = report.rows.reduce((s, r) => s + r.calls, 0);
    const sum = report.rows.reduce((s, r) => s + r.totalMs, 0);
    const ok = calls === dispatches && Math.abs(sum - report.gpuMs) < 1e-9 && report.gpuMs > 0 && report.gpuMs <= report.wallMs;
    return { name: `profiler (${report.source}): ${calls}/${dispatches} dispatches, rows sum ${sum.toFixed(4)} ms = GPU ${report.gpuMs.toFixed(4)} ms <= wall ${report.wallMs.toFixed(2)} ms`, variant: ctx.info.variant, seed: 0, ok, error: Math.abs(sum - report.gpuMs), tolerance: 1e-9 };
  });
}
const failed = results.filter((r) => !r.ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed`);
if (outFile) writeFileSync(outFile, JSON.stringify({ adapter: ctx.info.adapter, backend: ctx.info.backend, features: ctx.info.features, commit: BUILD_COMMIT, date: new Date().toISOString(), results }, null, 2));
ctx.destroy();
process.exit(failed ? 1 : 0);
