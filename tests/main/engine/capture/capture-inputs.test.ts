/**
 * captureToDataset's orchestration with real ffmpeg and a fake COLMAP (tests/helpers/fake-colmap.ts):
 * several clips and a photo folder in one capture, the frame budget, automatic matcher choice,
 * per-input report and diagnostics, resume, and the output-folder rules. Fast: no real SfM.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureToDataset } from '../../../../main/engine/capture/capture.js';
import { framesPerClip, resolveInputs } from '../../../../main/engine/capture/capture-inputs.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { blockTexture, crop, installedTool, pngOf, writeTestVideo } from '../../../helpers/capture.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { writeFakeColmap } from '../../../helpers/fake-colmap.js';
import { freshSeed } from '../../../helpers/random.js';

const ffmpeg = installedTool('ffmpeg');
const temp = cleanedTempDirs(afterAll);

describe('capture inputs', () => {
  it('classifies videos and photo folders and gives each a unique, safe name', async () => {
    const dir = await temp('inputs');
    await mkdir(path.join(dir, 'My Photos'));
    await mkdir(path.join(dir, 'b'));
    for (const f of ['a.mp4', 'b/a.mov', '.hidden.mkv']) await writeFile(path.join(dir, f), '');
    const inputs = await resolveInputs(['a.mp4', 'b/a.mov', 'My Photos', '.hidden.mkv'].map((f) => path.join(dir, f)));
    expect(inputs.map((i) => [i.kind, i.name])).toEqual([['video', 'a'], ['video', 'a-2'], ['photos', 'My_Photos'], ['video', 'hidden']]);
  });

  it('refuses a missing path and a folder that already is a posed dataset', async () => {
    const dir = await temp('inputs-bad');
    await expect(resolveInputs([path.join(dir, 'nope.mp4')])).rejects.toThrow(/nope\.mp4: not found \(expected a video file or a folder of photos\)/);
    await writeFile(path.join(dir, 'transforms.json'), '{}');
    await expect(resolveInputs([dir])).rejects.toThrow(/is already a posed dataset/);
    await expect(resolveInputs([])).rejects.toThrow(/give at least one video file or photo folder/);
    await writeFile(path.join(dir, 'IMG_1.JPG'), '');
    await expect(resolveInputs([path.join(dir, 'IMG_1.JPG')])).rejects.toThrow(/IMG_1\.JPG: is a single photo: give the folder/);
  });

  it('shares the frame budget by duration, at least 2 per clip', () => {
    expect(framesPerClip(100, [30, 10])).toEqual([75, 25]);
    expect(framesPerClip(10, [100, 1])).toEqual([10, 2]);
    expect(framesPerClip(9, [0, 0, 0])).toEqual([3, 3, 3]);
  });
});

describe.runIf(ffmpeg.available && process.platform !== 'win32')('captureToDataset with several inputs (fake COLMAP)', () => {
  async function setup(unregistered?: string) {
    const dir = await temp('capture-multi');
    const seed = freshSeed();
    const texture = blockTexture(700, 120, 3, seed);
    const clipA = await writeTestVideo(ffmpeg.path, Array.from({ length: 30 }, (_, p) => crop(texture, 8 * p, 0, 160, 120)), path.join(dir, 'a.mkv'));
    const clipB = await writeTestVideo(ffmpeg.path, Array.from({ length: 20 }, (_, p) => crop(texture, 300 + 8 * p, 0, 160, 120)), path.join(dir, 'b.mkv'));
    const photos = path.join(dir, 'shots');
    await mkdir(photos);
    for (let i = 0; i < 3; i++) await writeFile(path.join(photos, `p${i}.png`), pngOf(crop(texture, 500 + 20 * i, 0, 120, 120)));
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await writeFakeColmap(bin);
    const env = { ...process.env, PATH: [bin, path.dirname(ffmpeg.path)].join(path.delimiter), FAKE_COLMAP_VERSION: '3.8', ...(unregistered ? { FAKE_COLMAP_UNREGISTERED: unregistered } : {}) };
    return { dir, inputs: [clipA, clipB, photos], env, out: path.join(dir, 'dataset') };
  }

  it('clips share --frames by duration, all inputs are matched exhaustively, and a clip that registers nothing is named', async () => {
    const { inputs, env, out } = await setup('^b/');
    const { report } = await captureToDataset(inputs, out, { sfm: 'colmap', frames: 20, maxSize: 160, env });
    expect(report.inputs.map((i) => [i.name, i.kind, i.images, i.registered])).toEqual([['a', 'video', 12, 12], ['b', 'video', 8, 0], ['shots', 'photos', 3, 3]]);
    expect(report.inputs[0].video).toMatchObject({ framesDecoded: 30, segments: 12, durationS: 3 });
    expect(report).toMatchObject({ total: 23, registered: 15, matcher: 'exhaustive', models: [{ registered: 15, points: 0 }] });
    expect(report.inputs[1].unregistered).toHaveLength(8);
    const messages = report.diagnostics.map((d) => d.message).join('\n');
    expect(messages).toMatch(/clip "b": none of its 8 images registered/);
    expect(messages).toMatch(/Only 15 of 23 images registered \(65%\)/);
    const saved = JSON.parse(await readFile(path.join(out, 'capture', 'report.json'), 'utf8'));
    expect(saved.registered).toBe(15);
    const lists = await readFile(path.join(out, 'capture', 'colmap', 'lists', 'shots.txt'), 'utf8');
    expect(lists.trim().split('\n')).toEqual(['shots/p0.png', 'shots/p1.png', 'shots/p2.png']);

    // Again: every step reused.
    const again = await captureToDataset(inputs, out, { sfm: 'colmap', frames: 20, maxSize: 160, env });
    expect(again.report.resumed).toEqual(['scan:a', 'extract:a', 'scan:b', 'extract:b', 'photos:shots', 'features', 'matching', 'mapping']);
  }, 120_000);

  it('no model at all: bad_input whose message carries the diagnostics; the report is still written', async () => {
    const { inputs, env, out } = await setup('.');
    const error = (await captureToDataset(inputs, out, { sfm: 'colmap', frames: 10, maxSize: 160, env }).catch((e: unknown) => e)) as ArgonautError;
    expect(error.code).toBe('bad_input');
    expect(error.message).toMatch(/structure from motion failed: COLMAP could not build any model from the \d+ images \(no initial image pair/);
    const saved = JSON.parse(await readFile(path.join(out, 'capture', 'report.json'), 'utf8'));
    expect(saved.registered).toBe(0);
  }, 120_000);

  it("refuses to write into a non-empty folder that is not a capture", async () => {
    const { inputs, env, dir } = await setup();
    await expect(captureToDataset(inputs, dir, { sfm: 'colmap', env })).rejects.toThrow(/the folder exists and is not an earlier capture/);
  }, 120_000);
});
