import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openColmap } from '../../../../main/engine/capture/colmap-cli.js';
import { runSfm, type SfmGroup, type SfmOptions, type SfmProgress } from '../../../../main/engine/capture/sfm.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { isAlive } from '../../../helpers/capture.js';
import { makeColmapDataset, tempDir } from '../../../helpers/datasets.js';
import { writeFakeColmap } from '../../../helpers/fake-colmap.js';

const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

/** A workspace with 4 frames of one clip, a fake COLMAP, and two models for its mapper to "build" (3 and 2 images). */
async function setup(version: string, extraEnv: Record<string, string> = {}) {
  const dir = await tempDir('sfm');
  temps.push(dir);
  const big = await makeColmapDataset({ count: 3, seed: 1 });
  const small = await makeColmapDataset({ count: 2, seed: 2 });
  temps.push(big.root, small.root);
  const imagesDir = path.join(dir, 'images');
  await mkdir(path.join(imagesDir, 'clip'), { recursive: true });
  const group: SfmGroup = { name: 'clip', kind: 'video', images: [] };
  for (let i = 0; i < 4; i++) {
    const name = `clip/frame_${i}.jpg`;
    await writeFile(path.join(imagesDir, name), `frame ${i}`);
    group.images.push(name);
  }
  await mkdir(path.join(dir, 'bin'));
  const fake = await writeFakeColmap(path.join(dir, 'bin'));
  const calls = path.join(dir, 'calls.jsonl');
  const env = { ...process.env, FAKE_COLMAP_VERSION: version, FAKE_COLMAP_CALLS: calls, FAKE_COLMAP_MODELS: [small.sparse, big.sparse].join(path.delimiter), ...extraEnv };
  const colmap = await openColmap({ name: 'colmap', path: fake, via: 'test' }, env);
  const paths = { imagesDir, workDir: path.join(dir, 'colmap') };
  const readCalls = async (): Promise<string[][]> => (await readFile(calls, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]);
  return { colmap, paths, groups: [group], readCalls, big, env };
}

const OPTIONS: SfmOptions = { matcher: 'sequential', cameraModel: 'SIMPLE_RADIAL', maxFeatures: 4096, maxImageSize: 640, bundleAdjust: false };

/** The value after `--name` in a call. */
const valueOf = (call: string[], name: string): string | undefined => call[call.indexOf(`--${name}`) + 1];

describe.skipIf(process.platform === 'win32')('structure from motion through the colmap CLI (a fake colmap)', () => {
  it('names CPU SIFT by the installed version: SiftExtraction/SiftMatching up to 3.12, FeatureExtraction/FeatureMatching from 3.13', async () => {
    for (const [version, ex, ma] of [['3.8', 'SiftExtraction', 'SiftMatching'], ['3.13.0', 'FeatureExtraction', 'FeatureMatching']]) {
      const { colmap, paths, groups, readCalls } = await setup(version);
      expect(colmap.versionString).toBe(version === '3.8' ? '3.8.0' : '3.13.0');
      await runSfm(colmap, paths, groups, OPTIONS);
      const calls = (await readCalls()).filter((c) => !c.includes('--help') && c[0] !== 'help');
      expect(calls.map((c) => c[0])).toEqual(['feature_extractor', 'sequential_matcher', 'mapper']);
      const [extract, match] = calls;
      expect(valueOf(extract, `${ex}.use_gpu`), version).toBe('0');
      expect(valueOf(extract, `${ex}.max_image_size`)).toBe('640');
      expect(valueOf(extract, 'SiftExtraction.max_num_features')).toBe('4096');
      expect(valueOf(extract, 'ImageReader.single_camera')).toBe('1'); // one camera per video clip
      expect(valueOf(extract, 'ImageReader.camera_model')).toBe('SIMPLE_RADIAL');
      expect(valueOf(match, `${ma}.use_gpu`), version).toBe('0');
      expect(extract.some((a) => a.startsWith(`--${version === '3.8' ? 'FeatureExtraction' : 'SiftExtraction.use_gpu'}`))).toBe(false);
    }
  });

  it('turns progress lines (glog-prefixed from 3.10 on) into per-stage fractions, and keeps the largest model', async () => {
    const { colmap, paths, groups, big } = await setup('3.13.0');
    const events: SfmProgress[] = [];
    const result = await runSfm(colmap, paths, groups, { ...OPTIONS, onProgress: (p) => events.push(p) });
    const fractions = (stage: string) => events.filter((e) => e.stage === stage).map((e) => e.fraction);
    expect(fractions('features')).toEqual([0.25, 0.5, 0.75, 1]);
    expect(fractions('matching')).toEqual([0.25, 0.5, 0.75, 1]);
    expect(fractions('mapping').at(-1)).toBe(0.75); // "Registering image #3 (3)" of 4 images
    expect(result.features).toEqual({ 'clip/frame_0.jpg': 100, 'clip/frame_1.jpg': 200, 'clip/frame_2.jpg': 300, 'clip/frame_3.jpg': 400 });
    expect(result.models.map((m) => m.registered)).toEqual([3, 2]);
    expect(result.model!.images.map((im) => im.name).sort()).toEqual(big.images.map((im) => im.name).sort());
    expect(result.resumed).toEqual([]);
  });

  it('exhaustive matching reports block progress; bundle adjustment runs on the kept model', async () => {
    const { colmap, paths, groups, readCalls } = await setup('3.8');
    const events: SfmProgress[] = [];
    const result = await runSfm(colmap, paths, groups, { ...OPTIONS, matcher: 'exhaustive', bundleAdjust: true, onProgress: (p) => events.push(p) });
    expect(events.filter((e) => e.stage === 'matching').map((e) => e.fraction)).toEqual([0.25, 0.5, 0.75, 1]);
    const calls = (await readCalls()).filter((c) => !c.includes('--help') && c[0] !== 'help');
    expect(calls.map((c) => c[0])).toEqual(['feature_extractor', 'exhaustive_matcher', 'mapper', 'bundle_adjuster']);
    expect(valueOf(calls[3], 'input_path')).toBe(path.join(paths.workDir, 'sparse', '1')); // the 3-image model
    expect(result.modelDir).toBe(path.join(paths.workDir, 'bundled'));
    expect(result.model!.images).toHaveLength(3);
  });

  it('resumes: a second run starts no stage whose outputs exist', async () => {
    const { colmap, paths, groups, readCalls } = await setup('3.13.0');
    await runSfm(colmap, paths, groups, OPTIONS);
    const before = (await readCalls()).length;
    const events: SfmProgress[] = [];
    const again = await runSfm(colmap, paths, groups, { ...OPTIONS, onProgress: (p) => events.push(p) });
    expect((await readCalls()).slice(before).filter((c) => c[0] !== 'help' && !c.includes('--help'))).toEqual([]);
    expect(again.resumed).toEqual(['features', 'matching', 'mapping']);
    expect(events.every((e) => e.skipped)).toBe(true);
    expect(again.model!.images).toHaveLength(3);
    // Another matcher redoes matching and mapping only.
    await runSfm(colmap, paths, groups, { ...OPTIONS, matcher: 'exhaustive' });
    expect((await readCalls()).slice(before).filter((c) => c[0] !== 'help' && !c.includes('--help')).map((c) => c[0])).toEqual(['exhaustive_matcher', 'mapper']);
  });

  it('cancel kills the running COLMAP (even one that ignores SIGTERM); the next run resumes after the finished stages', async () => {
    const { colmap, paths, groups, readCalls, env } = await setup('3.13.0', { FAKE_COLMAP_HANG: 'sequential_matcher' });
    const controller = new AbortController();
    const pids: number[] = [];
    const run = runSfm(colmap, paths, groups, {
      ...OPTIONS,
      signal: controller.signal,
      onLog: (_, message) => pids.push(...[...message.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]))),
      onProgress: (p) => p.stage === 'matching' && controller.abort(),
    });
    const error = await run.catch((e: unknown) => e);
    expect((error as ArgonautError).code).toBe('cancelled');
    expect(pids).toHaveLength(2); // feature_extractor, then the matcher
    expect(isAlive(pids[1])).toBe(false);

    const resumedColmap = await openColmap(colmap.location, { ...env, FAKE_COLMAP_HANG: '' });
    const before = (await readCalls()).length;
    const result = await runSfm(resumedColmap, paths, groups, OPTIONS);
    expect(result.resumed).toEqual(['features']);
    expect((await readCalls()).slice(before).filter((c) => c[0] !== 'help' && !c.includes('--help')).map((c) => c[0])).toEqual(['sequential_matcher', 'mapper']);
  }, 30_000);

  it('a failing stage names the command, COLMAP\'s error line and the log file', async () => {
    const { colmap, paths, groups } = await setup('3.8', { FAKE_COLMAP_FAIL: 'mapper' });
    const error = (await runSfm(colmap, paths, groups, OPTIONS).catch((e: unknown) => e)) as ArgonautError;
    expect(error.message).toMatch(/colmap mapper failed \(exit 1\): ERROR: fake failure in mapper \(full log: .*logs[\\/]mapping\.log\)/);
  });

  it('reports no model (and the missing initial pair) when the mapper builds none', async () => {
    const { colmap, paths, groups } = await setup('3.8', { FAKE_COLMAP_MODELS: '' });
    const result = await runSfm(colmap, paths, groups, OPTIONS);
    expect(result.model).toBeNull();
    expect(result.models).toEqual([]);
    expect(result.noInitialPair).toBe(true);
  });
});
