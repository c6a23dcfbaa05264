import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCameraPathFile } from '../../../main/cli/commands/render-video.js';
import { orbitPath } from '../../../shared/scene/camera-path-sample.js';
import { cliJson } from '../../helpers/cli-json.js';
import { tempDir } from '../../helpers/datasets.js';
import { tinyDataset } from '../../helpers/projects.js';

function probe(file: string) {
  const json = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height,nb_read_frames:format=duration', '-of', 'json', file], { encoding: 'utf8' }));
  return { codec: json.streams[0].codec_name, width: json.streams[0].width, height: json.streams[0].height, frames: Number(json.streams[0].nb_read_frames), duration: Number(json.format.duration) };
}

describe('camera path files', () => {
  it('accept the schema and name the file and the field of NaN, Infinity, bad JSON and a missing file', async () => {
    const dir = await tempDir('path-files');
    const file = path.join(dir, 'p ü.json');
    const orbit = orbitPath({ centre: [0, 0, 0], radius: 2, height: 0.5, up: [0, -1, 0], turns: 1, duration: 2, fovYDeg: 50, keyframes: 4 });
    await writeFile(file, JSON.stringify(orbit));
    expect(await readCameraPathFile(file)).toEqual(orbit);
    // NaN inside a string is data, not a marker; the bare ones are refused by field.
    const text = JSON.stringify({ ...orbit, name: 'NaN Infinity' }).replace('"fovYDeg":50', '"fovYDeg":NaN').replace(/"duration":2/, '"duration":-Infinity');
    await writeFile(file, text);
    await expect(readCameraPathFile(file)).rejects.toMatchObject({
      code: 'bad_input',
      message: expect.stringMatching(/p ü\.json: .*duration: expected a finite number, got -Infinity.*keyframes\.0\.fovYDeg: expected a finite number, got NaN/),
    });
    await writeFile(file, '{"id": ');
    await expect(readCameraPathFile(file)).rejects.toMatchObject({ message: expect.stringMatching(/p ü\.json: not valid JSON/) });
    await expect(readCameraPathFile(path.join(dir, 'none.json'))).rejects.toMatchObject({ message: expect.stringMatching(/none\.json: camera path file not found/) });
  });
});

describe('render p.argo --orbit | --path --out video.mp4', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    const ds = await tinyDataset();
    dir = await tempDir('cli-video');
    file = path.join(dir, 'v.argo');
    await cliJson(['import', ds.root, '--project', file, '--iterations', '20']);
    expect((await cliJson(['train', file])).code).toBe(0);
  }, 120_000);

  it('--orbit writes an H.264 MP4 at the views\' size with a progress line per frame', async () => {
    const out = path.join(dir, 'orbit ü.mp4');
    const run = await cliJson(['render', file, '--orbit', '--duration', '1', '--fps', '12', '--out', out]);
    expect(run.code, run.err).toBe(0);
    expect(run.result).toMatchObject({ out, path: 'orbit', frames: 12, width: 32, height: 24, fps: 12, duration_s: 1, run: 'run-001' });
    expect(run.lines.filter((l) => l.type === 'progress' && l.stage === 'video.render').map((l) => l.step)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(probe(out)).toEqual({ codec: 'h264', width: 32, height: 24, frames: 12, duration: 1 });
  }, 60_000);

  it('--path renders a path file at the size and rate asked', async () => {
    const pathFile = path.join(dir, 'path.json');
    await writeFile(pathFile, JSON.stringify(orbitPath({ centre: [0, 0, 0], radius: 3, height: 0, up: [0, -1, 0], turns: 0.25, duration: 0.5, fovYDeg: 40, keyframes: 4, id: 'quarter', name: 'Quarter' })));
    const out = path.join(dir, 'path.mp4');
    const run = await cliJson(['render', file, '--path', pathFile, '--width', '48', '--height', '32', '--fps', '20', '--out', out]);
    expect(run.code, run.err).toBe(0);
    expect(probe(out)).toEqual({ codec: 'h264', width: 48, height: 32, frames: 10, duration: 0.5 });
  }, 60_000);

  it('refuses odd sizes (exit 3), mixed options (exit 2), and Ctrl+C cancels with exit 130 and no file', async () => {
    const odd = await cliJson(['render', file, '--orbit', '--width', '33', '--height', '24', '--out', path.join(dir, 'odd.mp4')]);
    expect(odd.code).toBe(3);
    expect(odd.error!.message).toMatch(/--width\/--height\/--fps: H\.264 in yuv420p needs an even width and height, got 33x24/);
    expect((await cliJson(['render', file, '--orbit', '--path', 'p.json', '--out', path.join(dir, 'x.mp4')])).code).toBe(2);
    expect((await cliJson(['render', file, '--view', '1', '--fps', '10', '--out', path.join(dir, 'x.png')])).code).toBe(2);
    const out = path.join(dir, 'cancelled.mp4');
    const controller = new AbortController();
    const run = await cliJson(['render', file, '--orbit', '--duration', '20', '--fps', '30', '--out', out], {
      signal: controller.signal,
      onOutput: (text) => text.includes('"step":5,') && controller.abort(),
    });
    expect(run.code).toBe(130);
    expect(run.error!.message).toMatch(/cancelled\.mp4: video render cancelled; no file written/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes('cancelled'))).toEqual([]);
  }, 60_000);
});
