/**
 * The whole capture on real data with the real tools: apple.mp4 (5 s, 50 frames, 1296x720) ->
 * 25 frames at 480 px -> COLMAP 3.x on the CPU -> a dataset the trainer reads. Sized so COLMAP
 * finishes in well under a minute on two cores (matching is most of it; at 640 px it took 1.5
 * minutes, for no property this file checks). The tests run in order on one output folder:
 * cancel, resume, reuse, train.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureToDataset, type CaptureProgress, type CaptureReport } from '../../../../main/engine/capture/capture.js';
import { parseModelAnalyzer } from '../../../../main/engine/capture/colmap-cli.js';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { runTrainingJob } from '../../../../main/engine/train/job.js';
import { allParams, resolveParams } from '../../../../shared/params/index.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { installedTool, isAlive } from '../../../helpers/capture.js';
import { tempDir } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { sharedDataset } from '../../../helpers/shared-data.js';

const ffmpeg = installedTool('ffmpeg');
const colmap = installedTool('colmap');
const apple = sharedDataset('video_apple');
const ready = ffmpeg.available && colmap.available && apple.available;

// COLMAP's mapper on its own features and matching: this test is about its processes (cancel, resume); sfm-gpu.test.ts runs ours under COLMAP's mapper, sfm-argonaut.test.ts our whole SfM
const OPTIONS = { frames: 25, maxSize: 480, sfm: 'colmap', features: 'colmap' } as const;
let out = '';
let report: CaptureReport | undefined;
afterAll(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

describe.runIf(ready)('capture: apple.mp4 to a posed dataset with ffmpeg and COLMAP', () => {
  it('cancel during matching stops COLMAP; the next run resumes after the finished stages and registers >= 90% of the frames', async () => {
    out = path.join(await tempDir('capture'), 'apple');
    const video = path.join(apple.dir, 'apple.mp4');
    const controller = new AbortController();
    const pids: number[] = [];
    const first = await captureToDataset([video], out, {
      ...OPTIONS,
      signal: controller.signal,
      onLog: (_, m) => pids.push(...[...m.matchAll(/colmap \w+ \(pid (\d+)\)/g)].map((x) => Number(x[1]))),
      onProgress: (p) => p.stage === 'matching' && p.percent > 0 && controller.abort(),
    }).catch((e: unknown) => e);
    expect((first as ArgonautError).code).toBe('cancelled');
    expect(pids).toHaveLength(2); // feature_extractor, sequential_matcher
    expect(isAlive(pids[1])).toBe(false);

    const events: CaptureProgress[] = [];
    const started = performance.now();
    const second = await captureToDataset([video], out, { ...OPTIONS, onProgress: (p) => events.push(p) });
    report = second.report;
    const wallS = (performance.now() - started) / 1000;
    console.log(`apple.mp4 SfM: ${report.registered}/${report.total} registered, ${report.points} points, mean reprojection error ${report.meanReprojectionErrorPx.toFixed(3)} px; resumed run ${wallS.toFixed(1)} s, stages ${JSON.stringify(report.timingsS)}`);
    expect(second.datasetDir).toBe(out);
    expect(report.resumed).toEqual(expect.arrayContaining(['scan:apple', 'extract:apple', 'features']));
    expect(report.timingsS.matching).toBeGreaterThan(0); // matching ran again (it was cancelled)
    expect(report.total).toBeGreaterThanOrEqual(20);
    expect(report.registered / report.total).toBeGreaterThanOrEqual(0.9);
    expect(report.points).toBeGreaterThan(1000);
    expect(report.meanReprojectionErrorPx).toBeLessThan(1);
    // COLMAP's path: its sequential matcher chose the pairs, its verification ran (none of ours)
    expect(report.pairs).toEqual({ method: 'sequential' });
    expect(report.verification).toBeUndefined();
    // Progress: every stage reaches 100%, from COLMAP's own output.
    for (const stage of ['matching', 'mapping'] as const) expect(Math.max(...events.filter((e) => e.stage === stage).map((e) => e.percent)), stage).toBe(100);
  }, 900_000);

  it('writes a dataset loadDataset reads, and a report that agrees with colmap model_analyzer', async () => {
    expect(report, 'needs the capture of the test before').toBeDefined();
    const dataset = await loadDataset(out);
    expect(dataset.format).toBe('colmap');
    expect(dataset.views).toHaveLength(report!.registered);
    expect(dataset.views[0].distortion?.model).toBe('SIMPLE_RADIAL'); // one shared camera, undistorted on load
    expect(Math.max(dataset.views[0].camera.width, dataset.views[0].camera.height)).toBe(OPTIONS.maxSize);
    expect(dataset.points!.positions.length / 3).toBe(report!.points);
    const analyzer = spawnSync(colmap.path, ['model_analyzer', '--path', path.join(out, 'sparse', '0')], { encoding: 'utf8', env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' } });
    const theirs = parseModelAnalyzer(`${analyzer.stdout}\n${analyzer.stderr}`);
    expect(theirs.registered).toBe(report!.registered);
    expect(theirs.points).toBe(report!.points);
    expect(Math.abs(theirs.meanReprojectionErrorPx! - report!.meanReprojectionErrorPx)).toBeLessThan(1e-5);
    expect(existsSync(path.join(out, 'capture', 'report.json'))).toBe(true);
  });

  it('a third run redoes nothing', async () => {
    const started = performance.now();
    const again = await captureToDataset([path.join(apple.dir, 'apple.mp4')], out, OPTIONS);
    expect(again.report.resumed).toEqual(['scan:apple', 'extract:apple', 'features', 'matching', 'mapping']);
    expect(again.report.registered).toBe(report!.registered);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('trains on the result: test PSNR well above the initial render', async () => {
    expect(report, 'needs the capture').toBeDefined();
    const ctx = await testGpu();
    const params = (iterations: number) => ({ ...resolveParams(allParams().filter((p) => p.key.startsWith('train.')), {}), 'train.iterations': iterations, 'train.downscale': 8, 'train.shDegree': 0, 'train.refineStart': 50, 'train.refineEvery': 25, 'train.refineStop': 75 });
    const source = { kind: 'dataset' as const, path: out };
    const started = performance.now();
    // The initial render's PSNR: a 1-step job evaluates exactly what evalEvery=1 would after step 1
    // of the long run (same seed, same data), without evaluating at every one of its steps.
    const initial = (await runTrainingJob(ctx, { source, params: params(1) })).evaluation.psnr;
    const result = await runTrainingJob(ctx, { source, params: params(100) });
    const final = result.evaluation.psnr;
    console.log(`training on the apple capture (${result.data.width}x${result.data.height} px): test PSNR ${initial.toFixed(2)} after 1 step -> ${final.toFixed(2)} after ${result.steps} (${result.evaluation.views.length} test views, ${((performance.now() - started) / 1000).toFixed(0)} s)`);
    expect(result.steps).toBe(100);
    expect(result.evaluation.views.length).toBe(3);
    expect(final, `test PSNR ${initial.toFixed(2)} -> ${final.toFixed(2)}`).toBeGreaterThan(initial + 8);
    expect(final).toBeGreaterThan(20);
  }, 900_000);
});
