/**
 * `argonaut --no-gui capture` and `export` as a user runs them: the built CLI in a child process
 * (PATH emptied to prove the missing-tool messages, and that our SfM needs no COLMAP), and a small
 * photo capture with our SfM.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { decodeImage } from '../../../main/engine/formats/images.js';
import { builtFile } from '../../helpers/build.js';
import { makeColmapDataset, tempDir } from '../../helpers/datasets.js';
import { applyOrientation, encodeJpeg, withExifOrientation } from '../../helpers/images.js';
import { identicalPhotos, statue } from '../../helpers/sfm-scenes.js';
import { captureStreams } from '../../helpers/streams.js';

const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

/** Runs the built CLI with the given environment; resolves with its exit code and output. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtFile('cli/index.mjs'), '--no-gui', ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe.skipIf(process.platform === 'win32')('argonaut --no-gui capture: missing tools', () => {
  it('--sfm colmap with PATH emptied names COLMAP, how to install it, and exits 1 (a JSON error event too)', async () => {
    const dir = await tempDir('nocolmap');
    temps.push(dir);
    await writeFile(path.join(dir, 'clip.mp4'), ''); // never read: the tools are checked first
    const { code, stdout, stderr } = await cli(['capture', path.join(dir, 'clip.mp4'), '--out', path.join(dir, 'o'), '--sfm', 'colmap', '--json'], { PATH: '' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/argonaut: colmap was not found on PATH \(nor in ARGONAUT_COLMAP\); it is needed for structure from motion .*Install it \(/);
    const event = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(event).toMatchObject({ type: 'error', code: 'unavailable', details: { tool: 'colmap' } });
  });

  it('our SfM (the default) needs no COLMAP: with PATH emptied, a video names ffmpeg only', async () => {
    const dir = await tempDir('noffmpeg');
    temps.push(dir);
    await writeFile(path.join(dir, 'clip.mp4'), '');
    const { code, stderr } = await cli(['capture', path.join(dir, 'clip.mp4'), '--out', path.join(dir, 'o')], { PATH: '' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/ffmpeg was not found on PATH \(nor in ARGONAUT_FFMPEG\); it is needed for reading video files/);
    expect(stderr).not.toMatch(/colmap/i);
  });
});

describe('argonaut --no-gui capture and export: arguments', () => {
  it('capture lists its registry parameters and refuses missing inputs or --out', async () => {
    const help = captureStreams();
    expect(await runCli(['--no-gui', 'capture', '--help'], { streams: help })).toBe(0);
    expect(help.out()).toMatch(/--frames <int>.*\(default: 150 frames\)/);
    expect(help.out()).toMatch(/--matcher <auto\|sequential\|exhaustive>/);
    const none = captureStreams();
    expect(await runCli(['--no-gui', 'capture', '--out', 'x'], { streams: none })).toBe(2);
    expect(none.err()).toMatch(/capture needs at least one video file or photo folder/);
    expect(await runCli(['--no-gui', 'capture', 'a.mp4'], { streams: captureStreams() })).toBe(2);
    expect(await runCli(['--no-gui', 'capture', 'a.mp4', '--out', 'x', '--frames', '1'], { streams: captureStreams() })).toBe(2);
  });

  it('capture --masks takes a mask folder for photos and refuses it with a video, naming the clip (exit 3)', async () => {
    const help = captureStreams();
    expect(await runCli(['--no-gui', 'capture', '--help'], { streams: help })).toBe(0);
    expect(help.out()).toMatch(/--masks <dir>/);
    const dir = await tempDir('capture-masks-cli');
    temps.push(dir);
    const clip = path.join(dir, 'walk.mp4');
    await writeFile(clip, 'a clip');
    await mkdir(path.join(dir, 'masks'));
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'capture', clip, '--out', path.join(dir, 'out'), '--masks', path.join(dir, 'masks')], { streams: s })).toBe(3);
    expect(s.err()).toContain(`${clip}: masks are not supported for video inputs`);
  });

  it('export writes transforms.json and reports it as JSON; a bad format is a usage error', async () => {
    const source = await makeColmapDataset({ count: 3 });
    temps.push(source.root);
    const out = await tempDir('export-cli');
    temps.push(out);
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'export', source.root, '--format', 'transforms', '--out', out, '--json'], { streams: s })).toBe(0);
    expect(s.jsonLines().at(-1)).toMatchObject({ type: 'result', format: 'transforms', views: 3, points: 5, images_copied: 3, out: path.join(out, 'transforms.json') });
    const bad = captureStreams();
    expect(await runCli(['--no-gui', 'export', source.root, '--format', 'ply', '--out', out], { streams: bad })).toBe(2);
    expect(bad.err()).toMatch(/--format ply writes splats: give a project \(\.argo\) or a splat file; .* is a folder \(for a dataset's cameras use --format transforms or colmap\)/);
  });
});

describe.runIf(statue.available)('argonaut --no-gui capture: a photo folder with our SfM (no COLMAP on PATH)', () => {
  it('6 photos of mixed sizes and EXIF orientations register; --json gives registered, total and who mapped', async () => {
    const dir = await tempDir('photos-cli');
    temps.push(dir);
    const photos = path.join(dir, 'photos');
    await mkdir(photos);
    for (let i = 0; i < 6; i++) {
      const name = `DSC_${5283 + i}.jpg`;
      const source = path.join(statue.dir, 'images', name);
      if (i % 3 === 2) {
        // Stored turned 90 degrees counter-clockwise with EXIF 6 ("rotate 90 clockwise to display"): a phone held upright.
        const image = applyOrientation(await decodeImage(new Uint8Array(await sharp(source).resize({ width: 400 }).jpeg().toBuffer()), name), 8);
        const rgba = new Uint8Array(image.width * image.height * 4);
        for (let p = 0; p < image.width * image.height; p++) rgba.set([...image.data.subarray(p * 3, p * 3 + 3), 255], p * 4);
        await writeFile(path.join(photos, name), withExifOrientation(encodeJpeg(image.width, image.height, rgba, 95), 6));
      } else {
        // one photo from another camera resolution
        await sharp(source).resize({ width: i === 3 ? 320 : 400 }).jpeg({ quality: 95 }).toFile(path.join(photos, name));
      }
    }
    const out = path.join(dir, 'dataset');
    const { code, stdout, stderr } = await cli(['capture', photos, '--out', out, '--max-features', '2048', '--json'], { ...process.env, PATH: '' });
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const result = lines.at(-1)!;
    expect(code, stderr).toBe(0);
    console.log(`photo capture (ours): ${String(result.registered)}/${String(result.total)} registered, ${String(result.points)} points, ${JSON.stringify(result.timings_s)}`);
    expect(result).toMatchObject({ type: 'result', total: 6, matcher: 'exhaustive', dataset: out, sfm: { method: 'argonaut' } });
    expect(result.registered as number).toBeGreaterThanOrEqual(5);
    expect(lines.some((l) => l.type === 'progress' && l.stage === 'photos')).toBe(true);
    for (const stage of ['features', 'matching', 'mapping', 'bundle']) expect(lines.some((l) => l.type === 'progress' && l.stage === stage), stage).toBe(true);
  }, 600_000);

  it('identical photos: exit code 3 and the message says there is no camera motion', async () => {
    const dir = await tempDir('identical-cli');
    temps.push(dir);
    const folder = await identicalPhotos(path.join(statue.dir, 'images', 'DSC_5283.jpg'), path.join(dir, 'same'), 3, 320);
    const { code, stderr } = await cli(['capture', folder, '--out', path.join(dir, 'dataset'), '--max-features', '1024'], { ...process.env, PATH: '' });
    expect(code, stderr).toBe(3);
    expect(stderr).toMatch(/the images show no camera motion .*move the camera between shots/);
  }, 300_000);

  it('a camera model our bundle adjustment does not refine is refused before any work (exit 2), naming it and --sfm colmap', async () => {
    const dir = await tempDir('fisheye-cli');
    temps.push(dir);
    const folder = await identicalPhotos(path.join(statue.dir, 'images', 'DSC_5283.jpg'), path.join(dir, 'photos'), 2, 160);
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'capture', folder, '--out', path.join(dir, 'dataset'), '--camera-model', 'OPENCV_FISHEYE'], { streams: s })).toBe(2);
    expect(s.err()).toMatch(/camera model OPENCV_FISHEYE: our SfM's bundle adjustment refines SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL, OPENCV .*--sfm colmap/);
    expect(existsSync(path.join(dir, 'dataset'))).toBe(false);
  });
});
