import { spawnSync } from 'node:child_process';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { frameFileName, processVideo, type CaptureInput } from '../../../../main/engine/capture/capture-inputs.js';
import { probeImage } from '../../../../main/engine/formats/images.js';
import { frameSelectExpression, parseShowinfo, PgmStreamParser, probeVideo, scanVideo, type FfmpegTools } from '../../../../main/engine/capture/video.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { blockTexture, boxBlur, crop, installedTool, isAlive, writeTestVideo, type RgbImage } from '../../../helpers/capture.js';
import { tempDir } from '../../../helpers/datasets.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { sharedDataset } from '../../../helpers/shared-data.js';

const ffmpeg = installedTool('ffmpeg');
const apple = sharedDataset('video_apple');
const tools: FfmpegTools = { ffmpeg: ffmpeg.path, ffprobe: ffmpeg.path.replace(/ffmpeg$/, 'ffprobe') };
const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

async function work(): Promise<string> {
  const dir = await tempDir('video');
  temps.push(dir);
  return dir;
}

describe('ffmpeg output parsing', () => {
  it('splits a PGM stream into frames whatever the chunk boundaries', () => {
    const frame = (w: number, h: number, v: number) => Buffer.concat([Buffer.from(`P5\n${w} ${h}\n255\n`), Buffer.alloc(w * h, v)]);
    const stream = Buffer.concat([frame(3, 2, 7), frame(4, 1, 9), frame(2, 2, 11)]);
    for (const size of [1, 5, 17, stream.length]) {
      const images: { width: number; height: number; first: number }[] = [];
      const parser = new PgmStreamParser((im) => images.push({ width: im.width, height: im.height, first: im.data[0] }));
      for (let i = 0; i < stream.length; i += size) parser.push(stream.subarray(i, i + size));
      expect(images, `chunks of ${size}`).toEqual([{ width: 3, height: 2, first: 7 }, { width: 4, height: 1, first: 9 }, { width: 2, height: 2, first: 11 }]);
    }
  });

  it('reads frame numbers and times from showinfo lines', () => {
    expect(parseShowinfo('[Parsed_showinfo_2 @ 0x55] n:  49 pts:  50176 pts_time:4.9     pos:  1202430 fmt:gray')).toEqual({ n: 49, timeS: 4.9 });
    expect(parseShowinfo('[Parsed_showinfo_2 @ 0x55] config in time_base: 1/10240')).toBeNull();
  });
});

describe.runIf(ffmpeg.available)('video through ffmpeg', () => {
  it.runIf(apple.available)('probes and scans apple.mp4: 50 frames over 5 s at 10 fps, 1296x720', async () => {
    const file = path.join(apple.dir, 'apple.mp4');
    const info = await probeVideo(tools, file);
    expect(info).toMatchObject({ durationS: 5, fps: 10, width: 1296, height: 720, frameCount: 50, codec: 'h264' });
    const frames = await scanVideo(tools, file, info);
    expect(frames).toHaveLength(50);
    expect(frames.map((f) => f.timeS)).toEqual(frames.map((_, i) => Number((i / 10).toFixed(1))));
    expect(frames.every((f) => f.sharpness > 0 && f.thumbnail.width === 32 && f.thumbnail.height === 18)).toBe(true);
  });

  it('refuses a file that is not a video, naming it', async () => {
    const dir = await work();
    const file = path.join(dir, 'notes.mp4');
    await import('node:fs/promises').then((fs) => fs.writeFile(file, 'not a video'));
    await expect(probeVideo(tools, file)).rejects.toThrow(new RegExp(`${file}: not a video ffprobe can read`));
  });

  it('picks the sharp frame over its box-blurred copies in every segment', async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const texture = blockTexture(400, 120, 3, seed);
    const frames: RgbImage[] = [];
    const sharpIndexes: number[] = [];
    for (let p = 0; p < 20; p++) {
      const view = crop(texture, 10 * p, 0, 160, 120);
      const slot = Math.floor(random() * 3); // the sharp copy's place in its triple
      for (let k = 0; k < 3; k++) {
        if (k === slot) sharpIndexes.push(frames.length);
        frames.push(k === slot ? view : boxBlur(view, 1 + Math.floor(random() * 2)));
      }
    }
    const dir = await work();
    const video = await writeTestVideo(ffmpeg.path, frames, path.join(dir, 'pan.mkv'), 10);
    const input: CaptureInput = { path: video, kind: 'video', name: 'pan' };
    const outcome = await processVideo(tools, input, { imagesDir: path.join(dir, 'images'), workDir: path.join(dir, 'work') }, { frames: 20, maxSize: 100 });
    expect(outcome.framesDecoded).toBe(60);
    expect(outcome.images.map((im) => im.index), `seed ${seed}`).toEqual(sharpIndexes);
    expect(outcome.selection.dropped).toEqual([]);
    const written = (await readdir(path.join(dir, 'images', 'pan'))).sort();
    expect(written).toEqual(sharpIndexes.map(frameFileName));
    expect(await probeImage(path.join(dir, 'images', 'pan', written[0]))).toMatchObject({ format: 'jpeg', width: 100, height: 75 });
  }, 120_000);

  it('drops a camera standing still (duplicates) and a segment blurred throughout', async () => {
    const seed = freshSeed();
    const texture = blockTexture(600, 120, 3, seed);
    const frames: RgbImage[] = [];
    for (let i = 0; i < 8; i++) frames.push(crop(texture, 0, 0, 160, 120)); // still: frames 0-7
    for (let p = 1; p <= 32; p++) {
      const view = crop(texture, 12 * p, 0, 160, 120);
      frames.push(p >= 13 && p <= 16 ? boxBlur(view, 5) : view); // frames 20-23 blurred
    }
    const dir = await work();
    const video = await writeTestVideo(ffmpeg.path, frames, path.join(dir, 'still-then-pan.mkv'), 10);
    const input: CaptureInput = { path: video, kind: 'video', name: 'clip' };
    const outcome = await processVideo(tools, input, { imagesDir: path.join(dir, 'images'), workDir: path.join(dir, 'work') }, { frames: 10, maxSize: 160 });
    // 10 segments of 4 frames: 0 and 1 show the same still picture; segment 5 (frames 20-23) is all blur.
    const dropped = outcome.selection.dropped.map((d) => [Math.floor(d.index / 4), d.reason]);
    expect(dropped, `seed ${seed}`).toEqual([[1, 'duplicate'], [5, 'blurry']]);
    expect(outcome.images).toHaveLength(8);
  }, 120_000);

  it('resumes: a second run reuses the scan and the extracted frames', async () => {
    const seed = freshSeed();
    const texture = blockTexture(300, 100, 3, seed);
    const frames = Array.from({ length: 12 }, (_, p) => crop(texture, 10 * p, 0, 120, 90));
    const dir = await work();
    const video = await writeTestVideo(ffmpeg.path, frames, path.join(dir, 'short.mkv'));
    const input: CaptureInput = { path: video, kind: 'video', name: 'short' };
    const dirs = { imagesDir: path.join(dir, 'images'), workDir: path.join(dir, 'work') };
    const first = await processVideo(tools, input, dirs, { frames: 6, maxSize: 120 });
    expect(first.resumed).toEqual([]);
    const file = path.join(dirs.imagesDir, first.images[0].name);
    const before = (await stat(file)).mtimeMs;
    const second = await processVideo(tools, input, dirs, { frames: 6, maxSize: 120 });
    expect(second.resumed).toEqual(['scan', 'extract']);
    expect(second.images).toEqual(first.images);
    expect((await stat(file)).mtimeMs).toBe(before);
    // Another size is not reused: every frame is extracted again.
    const third = await processVideo(tools, input, dirs, { frames: 6, maxSize: 60 });
    expect(third.resumed).toEqual(['scan']);
    expect(await probeImage(file)).toMatchObject({ width: 60, height: 45 });
  }, 120_000);

  it('cancel kills ffmpeg and rejects with cancelled', async () => {
    const dir = await work();
    const video = path.join(dir, 'long.mkv');
    const made = spawnSync(ffmpeg.path, ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=120:size=320x240:rate=30', '-c:v', 'mpeg4', '-q:v', '5', video]);
    expect(made.status).toBe(0);
    const info = await probeVideo(tools, video);
    const controller = new AbortController();
    let pid = 0;
    const started = Date.now();
    const scan = scanVideo(tools, video, info, { signal: controller.signal, onStart: (p) => (pid = p), onFrame: (n) => n === 5 && controller.abort() });
    const error = await scan.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArgonautError);
    expect((error as ArgonautError).code).toBe('cancelled');
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 120_000);
});

describe('frameSelectExpression', () => {
  it('sums eq(n, i) terms flat up to 10 and in nested groups of 10 beyond, every frame once', () => {
    expect(frameSelectExpression([3, 7])).toBe('eq(n\\,3)+eq(n\\,7)');
    const indexes = Array.from({ length: 1234 }, (_, k) => 2 * k);
    const expression = frameSelectExpression(indexes);
    expect(expression.match(/eq\(n\\,\d+\)/g)?.map((t) => Number(t.slice(6, -1)))).toEqual(indexes);
    let depth = 0;
    let deepest = 0;
    let longestSum = 0;
    let sum = 0;
    for (const c of expression) {
      if (c === '(' ) deepest = Math.max(deepest, ++depth);
      if (c === ')') depth--;
      if (c === '+') longestSum = Math.max(longestSum, ++sum);
      if (c === '(' || c === ')') sum = 0;
    }
    // ffmpeg fails past a flat sum of ~100 terms (150 measured failing, 100 passing)
    expect(deepest).toBeLessThanOrEqual(5);
    expect(longestSum).toBeLessThan(20);
  });
});
