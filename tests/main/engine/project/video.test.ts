import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GpuContext } from '../../../../main/engine/gpu/context.js';
import { renderPathVideo } from '../../../../main/engine/project/video.js';
import { renderImage } from '../../../../main/engine/render/render-image.js';
import { orbitCameras, torusKnotSplats } from '../../../../main/engine/train/sample-scene.js';
import { cameraAt, samplePath } from '../../../../shared/scene/camera-path-sample.js';
import { sceneOrbit } from '../../../../shared/scene/scene-orbit.js';
import { testGpu } from '../../../helpers/gpu.js';

/** What ffprobe says of a video's first stream. */
function probe(file: string) {
  const json = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height,nb_read_frames,pix_fmt,avg_frame_rate:format=duration', '-of', 'json', file], { encoding: 'utf8' }));
  const s = json.streams[0];
  return { codec: s.codec_name, width: s.width, height: s.height, frames: Number(s.nb_read_frames), pixFmt: s.pix_fmt, fps: s.avg_frame_rate, duration: Number(json.format.duration) };
}

/** Frame `index` of a video decoded to rgb24. */
function decodeFrame(file: string, index: number, width: number, height: number): Uint8Array {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${index})`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], { maxBuffer: 1 << 24 });
  expect(raw.length).toBe(width * height * 3);
  return new Uint8Array(raw);
}

describe('renderPathVideo (sample scene, 64x48)', () => {
  let gpu: GpuContext;
  let dir: string;
  const splats = torusKnotSplats(3000, 7);
  const path2s = sceneOrbit(orbitCameras(40, 64, 48), new Float32Array(0), { duration: 2 });
  const options = { background: [0, 0, 0] as const, antialiased: false, shDegree: 0 };
  beforeAll(async () => {
    gpu = await testGpu();
    dir = await mkdtemp(path.join(os.tmpdir(), 'argonaut-video-'));
  });
  afterAll(() => gpu?.destroy());

  it('writes a 2-second H.264 MP4 whose frames are the renders at the path samples', async () => {
    const out = path.join(dir, 'orbit ü.mp4');
    const progress: number[] = [];
    const result = await renderPathVideo(gpu, splats, path2s, { width: 64, height: 48, fps: 30 }, out, { ...options, onProgress: (p) => progress.push(p.frame) });
    expect(result).toMatchObject({ out, frames: 60, width: 64, height: 48, fps: 30, durationS: 2 });
    expect(progress).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(probe(out)).toEqual({ codec: 'h264', width: 64, height: 48, frames: 60, pixFmt: 'yuv420p', fps: '30/1', duration: 2 });
    // Frame 37 is the render at 37/30 s (H.264 at crf 18 keeps it within a few levels).
    const image = await renderImage(gpu, splats, cameraAt(samplePath(path2s, 37 / 30), 64, 48), options);
    const decoded = decodeFrame(out, 37, 64, 48);
    let error = 0;
    let lit = 0;
    for (let p = 0; p < 64 * 48; p++) {
      for (let c = 0; c < 3; c++) {
        const expected = Math.round(Math.min(1, Math.max(0, image.rgba[4 * p + c])) * 255);
        error += Math.abs(decoded[3 * p + c] - expected);
        if (expected > 40) lit++;
      }
    }
    expect(lit, 'the scene is in view').toBeGreaterThan(200);
    expect(error / (64 * 48 * 3)).toBeLessThan(6);
    // A different frame differs from it: the camera moves.
    const other = decodeFrame(out, 7, 64, 48);
    expect(other.reduce((s, v, i) => s + Math.abs(v - decoded[i]), 0) / other.length).toBeGreaterThan(3);
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('cancelled mid-render: ffmpeg is killed and no file (nor temporary) is left', async () => {
    const out = path.join(dir, 'cancelled.mp4');
    const controller = new AbortController();
    const rendering = renderPathVideo(gpu, splats, path2s, { width: 64, height: 48, fps: 30 }, out, { ...options, signal: controller.signal, onProgress: (p) => p.frame === 10 && controller.abort() });
    await expect(rendering).rejects.toMatchObject({ code: 'cancelled', message: expect.stringContaining('cancelled.mp4: video render cancelled') });
    expect((await readdir(dir)).filter((n) => n.includes('cancelled'))).toEqual([]);
  }, 60_000);

  it('names ffmpeg and how to install it when it is missing, and quotes its stderr when it fails', async () => {
    const out = path.join(dir, 'missing.mp4');
    await expect(renderPathVideo(gpu, splats, path2s, { width: 64, height: 48, fps: 30 }, out, { ...options, ffmpeg: path.join(dir, 'no-such-ffmpeg') }))
      .rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/missing\.mp4: cannot encode the video: ffmpeg was not found .*apt install ffmpeg.*ARGONAUT_FFMPEG/) });
    const failing = path.join(dir, 'failing-ffmpeg.sh');
    await writeFile(failing, '#!/bin/sh\necho "Unknown encoder libx264" >&2\nexit 1\n');
    await chmod(failing, 0o755);
    const failed = path.join(dir, 'failed.mp4');
    await expect(renderPathVideo(gpu, splats, path2s, { width: 64, height: 48, fps: 30 }, failed, { ...options, ffmpeg: failing }))
      .rejects.toMatchObject({ code: 'internal', message: expect.stringMatching(/failed\.mp4: ffmpeg failed \(exit code 1\): Unknown encoder libx264/) });
    expect((await readdir(dir)).filter((n) => n.includes('missing') || n.includes('failed'))).toEqual([]);
  }, 60_000);

  it('refuses odd frame sizes and a folder that does not exist, by name', async () => {
    await expect(renderPathVideo(gpu, splats, path2s, { width: 65, height: 48, fps: 30 }, path.join(dir, 'odd.mp4'), options))
      .rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/odd\.mp4: H\.264 in yuv420p needs an even width and height, got 65x48/) });
    await expect(renderPathVideo(gpu, splats, path2s, { width: 64, height: 48, fps: 30 }, path.join(dir, 'nope', 'x.mp4'), options))
      .rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/x\.mp4: the folder for the video does not exist/) });
  });
});
