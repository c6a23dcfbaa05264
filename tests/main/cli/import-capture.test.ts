/**
 * `argonaut --no-gui import <video|photos>... --project p.argo`: the built CLI in a child process
 * with real ffmpeg and the fake COLMAP (tests/helpers/fake-colmap.ts) first on PATH, so structure
 * from motion takes milliseconds. The fake registers every image it was given with one 100x100
 * camera, so the clips and photos here are 100x100 (the dataset loader checks image sizes).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProjectManifestSchema } from '../../../shared/project/manifest.js';
import { blockTexture, crop, installedTool, pngOf } from '../../helpers/capture.js';
import { tempDir } from '../../helpers/datasets.js';
import { writeFakeColmap } from '../../helpers/fake-colmap.js';
import { freshSeed } from '../../helpers/random.js';
import { spawnCli } from '../../helpers/spawn-cli.js';

const ffmpeg = installedTool('ffmpeg');
const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

async function workspace(prefix: string) {
  const dir = await tempDir(prefix);
  temps.push(dir);
  const bin = path.join(dir, 'bin');
  await mkdir(bin);
  await writeFakeColmap(bin);
  const env = { PATH: [bin, path.dirname(ffmpeg.path), process.env.PATH ?? ''].join(path.delimiter), FAKE_COLMAP_VERSION: '3.8' };
  return { dir, env };
}

/** A 3 s clip of ffmpeg's test pattern, 100x100 at 10 fps. */
function testClip(file: string): string {
  const made = spawnSync(ffmpeg.path, ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=100x100:rate=10:duration=3', '-pix_fmt', 'yuv420p', file]);
  expect(made.status, made.stderr?.toString()).toBe(0);
  return file;
}

async function run(args: string[], env: NodeJS.ProcessEnv) {
  const cli = spawnCli(args, env);
  const { code } = await cli.exited;
  return { code, lines: cli.lines, stderr: cli.stderr(), result: cli.lines.at(-1) ?? {} };
}

describe.runIf(ffmpeg.available && process.platform !== 'win32')('import from video and photos (fake COLMAP)', () => {
  it('a clip becomes a project on its captured dataset: stage progress, registered/total, sources and the SfM record in the manifest; export --format transforms reads it', async () => {
    const { dir, env } = await workspace('import-video');
    const clip = testClip(path.join(dir, 'walk around.mp4'));
    const file = path.join(dir, 'walk.argo');
    const { code, lines, stderr, result } = await run(['import', '--sfm', 'colmap', clip, '--project', file, '--frames', '6', '--max-size', '160', '--iterations', '30'], env);
    expect(code, stderr).toBe(0);
    const stages = new Set(lines.filter((l) => l.type === 'progress').map((l) => l.stage));
    for (const stage of ['scan', 'extract', 'features', 'matching', 'mapping', 'verify']) expect(stages, `progress stages ${[...stages].join(', ')}`).toContain(stage);
    expect(result).toMatchObject({ type: 'result', project: file, format: 'colmap', matcher: 'sequential', copied: true });
    expect(result.total as number).toBeGreaterThanOrEqual(4);
    expect(result.total as number).toBeLessThanOrEqual(6);
    expect(result.registered).toBe(result.total);
    expect(result.views).toBe(result.registered);
    expect(result.dataset).toBe(path.join(dir, 'walk.argo.data', 'dataset'));

    const manifest = ProjectManifestSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    expect(manifest.sources).toEqual([{ kind: 'video', path: 'walk around.mp4', importedAt: expect.any(String) as string }]);
    expect(manifest.capture).toMatchObject({ report: 'walk.argo.data/dataset/capture/report.json', registered: result.registered, total: result.total, points: 0, matcher: 'sequential' });
    expect(manifest.dataset).toMatchObject({ kind: 'folder', path: 'walk.argo.data/dataset', copied: true, views: result.registered });
    expect(manifest.params).toEqual({ 'train.iterations': 30 });
    const report = JSON.parse(await readFile(path.join(dir, 'walk.argo.data', 'dataset', 'capture', 'report.json'), 'utf8'));
    expect(report.registered).toBe(result.registered);

    const exported = await run(['export', file, '--format', 'transforms', '--out', path.join(dir, 'cams')], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.result).toMatchObject({ type: 'result', format: 'transforms', views: result.registered, source: file });
    const transforms = JSON.parse(await readFile(path.join(dir, 'cams', 'transforms.json'), 'utf8'));
    expect(transforms.frames).toHaveLength(result.registered as number);

    // The same project again: refused, the first one untouched.
    const before = await readFile(file, 'utf8');
    const again = await run(['import', '--sfm', 'colmap', clip, '--project', file], env);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`${file}: the project file already exists`);
    expect(await readFile(file, 'utf8')).toBe(before);
  }, 120_000);

  it('a clip and a photo folder together match exhaustively; a failed mapper leaves no project, and the same import again resumes the capture', async () => {
    const { dir, env } = await workspace('import-mixed');
    const clip = testClip(path.join(dir, 'clip.mkv'));
    const photos = path.join(dir, 'shots');
    await mkdir(photos);
    const texture = blockTexture(400, 100, 4, freshSeed());
    for (let i = 0; i < 3; i++) await writeFile(path.join(photos, `p${i}.png`), pngOf(crop(texture, 40 * i, 0, 100, 100)));
    const file = path.join(dir, 'mixed.argo');

    const failed = await run(['import', '--sfm', 'colmap', clip, photos, '--project', file, '--frames', '4'], { ...env, FAKE_COLMAP_FAIL: 'mapper' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/colmap mapper failed/);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);

    const { code, stderr, result } = await run(['import', '--sfm', 'colmap', clip, photos, '--project', file, '--frames', '4'], env);
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ matcher: 'exhaustive', total: 7, registered: 7, views: 7 });
    expect(result.resumed).toEqual(expect.arrayContaining(['scan:clip', 'extract:clip', 'photos:shots', 'features', 'matching']));
    expect((result.inputs as { name: string; kind: string }[]).map((i) => [i.name, i.kind])).toEqual([['clip', 'video'], ['shots', 'photos']]);
    const manifest = ProjectManifestSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    expect(manifest.sources.map((s) => [s.kind, s.path])).toEqual([['video', 'clip.mkv'], ['photos', 'shots']]);
  }, 120_000);

  it('bad inputs exit 3 and name the file; nothing is created', async () => {
    const { dir, env } = await workspace('import-bad');
    const clip = testClip(path.join(dir, 'ok.mp4'));
    const cases: { inputs: string[]; file: string; problem: RegExp }[] = [];
    cases.push({ inputs: [clip, path.join(dir, 'missing.mov')], file: path.join(dir, 'missing.mov'), problem: /not found \(expected a video file or a folder of photos\)/ });
    await writeFile(path.join(dir, 'empty.mp4'), '');
    cases.push({ inputs: [path.join(dir, 'empty.mp4')], file: path.join(dir, 'empty.mp4'), problem: /the file is empty \(0 bytes\)/ });
    await writeFile(path.join(dir, 'fake.mov'), 'not a video at all');
    cases.push({ inputs: [clip, path.join(dir, 'fake.mov')], file: path.join(dir, 'fake.mov'), problem: /not a video: no MP4/ });
    const posed = path.join(dir, 'posed');
    await mkdir(path.join(posed, 'sparse', '0'), { recursive: true });
    await writeFile(path.join(posed, 'sparse', '0', 'cameras.bin'), '');
    cases.push({ inputs: [clip, posed], file: posed, problem: /is already a posed dataset/ });
    for (const [k, c] of cases.entries()) {
      const file = path.join(dir, `bad-${k}.argo`);
      const { code, stderr } = await run(['import', '--sfm', 'colmap', ...c.inputs, '--project', file], env);
      expect(code, stderr).toBe(3);
      expect(stderr).toContain(c.file);
      expect(stderr).toMatch(c.problem);
      await expect(stat(file)).rejects.toThrow(/ENOENT/);
      await expect(stat(`${file}.data`)).rejects.toThrow(/ENOENT/);
    }
    // Masks with a video: refused by the clip's name (a mask per extracted frame cannot be given)
    await mkdir(path.join(dir, 'masks'));
    const masked = path.join(dir, 'masked.argo');
    const refused = await run(['import', '--sfm', 'colmap', clip, '--project', masked, '--masks', path.join(dir, 'masks')], env);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain(`${clip}: masks are not supported for video inputs`);
    await expect(stat(masked)).rejects.toThrow(/ENOENT/);
    // Capture parameters with a dataset: a usage error.
    const usage = await run(['import', '--sfm', 'colmap', posed, '--project', path.join(dir, 'u.argo'), '--frames', '10'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/capture\.frames apply to video and photo inputs only/);
  }, 120_000);
});
