/**
 * Video through ffmpeg, in two passes so that long clips stay cheap:
 *   1. scan: every frame decoded once, downscaled to SCAN_WIDTH grey by ffmpeg and streamed to us
 *      as PGM (self-describing: no size to guess after rotation or odd aspect ratios); each frame
 *      is scored (variance of the Laplacian) and thumbnailed here, its time read from showinfo.
 *   2. extract: only the chosen frames (ffmpeg's select filter, by frame number), scaled so the
 *      long side is at most maxSize, written as JPEG into a temporary folder and renamed into place.
 * Frame numbers are decode order, identical in both passes (passthrough frame timing, the same
 * autorotation).
 */
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';
import type { ScoredFrame } from './frame-selection.js';
import { laplacianVariance, thumbnail, type GreyImage } from './sharpness.js';
import { runTool } from './tool-process.js';

/** Width of the grey frames sharpness is measured on (narrower videos keep their width). */
export const SCAN_WIDTH = 480;

export interface VideoInfo {
  durationS: number;
  fps: number;
  /** Displayed size (after the rotation metadata). */
  width: number;
  height: number;
  /** Frame count from the container, when it states one. */
  frameCount?: number;
  codec: string;
  rotation: number;
}

export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
  /** Major version of ffmpeg (5+ knows -fps_mode); unknown builds are treated as new. */
  major?: number;
}

function rate(text: unknown): number {
  if (typeof text !== 'string') return NaN;
  const [n, d] = text.split('/').map(Number);
  return d ? n / d : n;
}

/** Duration, frame rate and size of the first video stream, or `bad_input` naming the file. */
export async function probeVideo(tools: FfmpegTools, file: string, signal?: AbortSignal): Promise<VideoInfo> {
  const lines: string[] = [];
  const result = await runTool({
    file: tools.ffprobe,
    args: ['-v', 'error', '-select_streams', 'v:0', '-show_streams', '-show_format', '-of', 'json', file],
    signal,
    onLine: (line, stream) => {
      if (stream === 'stdout') lines.push(line);
    },
  });
  if (result.code !== 0) throw badInput(file, `not a video ffprobe can read (${result.tail.filter((l) => !l.startsWith('{')).slice(-3).join(' ') || `exit ${result.code}`})`);
  let json: { streams?: Record<string, unknown>[]; format?: Record<string, unknown> };
  try {
    json = JSON.parse(lines.join('\n'));
  } catch {
    throw badInput(file, 'ffprobe printed no readable description of this file');
  }
  const stream = json.streams?.[0];
  if (!stream) throw badInput(file, 'has no video stream');
  const sideData = (stream.side_data_list as { rotation?: number }[] | undefined) ?? [];
  const tags = (stream.tags as Record<string, string> | undefined) ?? {};
  const rotation = Number(sideData.find((s) => typeof s.rotation === 'number')?.rotation ?? tags.rotate ?? 0) || 0;
  const swap = Math.abs(rotation) % 180 === 90;
  const width = Number(stream.width);
  const height = Number(stream.height);
  if (!(width > 0 && height > 0)) throw badInput(file, 'the video stream has no frame size');
  const fps = [rate(stream.avg_frame_rate), rate(stream.r_frame_rate)].find((r) => Number.isFinite(r) && r > 0) ?? 30;
  const durationS = [Number(stream.duration), Number(json.format?.duration)].find((d) => Number.isFinite(d) && d > 0) ?? 0;
  const frames = Number(stream.nb_frames);
  return {
    durationS,
    fps,
    width: swap ? height : width,
    height: swap ? width : height,
    ...(Number.isInteger(frames) && frames > 0 ? { frameCount: frames } : {}),
    codec: String(stream.codec_name ?? 'unknown'),
    rotation,
  };
}

/** Splits a byte stream of binary PGM images (P5, maxval 255) into grey images. */
export class PgmStreamParser {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly onImage: (image: GreyImage) => void) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const header = this.parseHeader();
      if (!header) return;
      const size = header.width * header.height;
      if (this.buffer.length < header.offset + size) return;
      const data = new Uint8Array(this.buffer.subarray(header.offset, header.offset + size));
      this.buffer = this.buffer.subarray(header.offset + size);
      this.onImage({ width: header.width, height: header.height, data });
    }
  }

  /** Header fields and where the pixels start, or null while incomplete. */
  private parseHeader(): { width: number; height: number; offset: number } | null {
    const b = this.buffer;
    if (b.length < 2) return null;
    if (b[0] !== 0x50 || b[1] !== 0x35) throw new Error('expected a binary PGM (P5) frame from ffmpeg');
    const fields: number[] = [];
    let i = 2;
    while (fields.length < 3) {
      while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
      if (i >= b.length) return null;
      let value = 0;
      const start = i;
      while (i < b.length && b[i] >= 0x30 && b[i] <= 0x39) value = value * 10 + (b[i++] - 0x30);
      if (i >= b.length) return null;
      if (i === start) throw new Error('malformed PGM header from ffmpeg');
      fields.push(value);
    }
    if (fields[2] !== 255) throw new Error(`expected 8-bit PGM frames, got maxval ${fields[2]}`);
    return { width: fields[0], height: fields[1], offset: i + 1 };
  }
}

const SHOWINFO = /\bn:\s*(\d+)\s+pts:\s*(-?\d+|NOPTS)\s+pts_time:\s*(-?[\d.]+(?:e[-+]?\d+)?|NOPTS)/;

/** Time of each frame number from ffmpeg's showinfo lines. */
export function parseShowinfo(line: string): { n: number; timeS: number | undefined } | null {
  const m = SHOWINFO.exec(line);
  if (!m) return null;
  const t = Number(m[3]);
  return { n: Number(m[1]), timeS: Number.isFinite(t) ? t : undefined };
}

function frameTimingArgs(tools: FfmpegTools): string[] {
  return tools.major !== undefined && tools.major < 5 ? ['-vsync', 'passthrough'] : ['-fps_mode', 'passthrough'];
}

export interface ScanOptions {
  signal?: AbortSignal;
  logFile?: string;
  onFrame?: (count: number) => void;
  onStart?: (pid: number) => void;
}

/** Pass 1: every frame's sharpness, time and thumbnail, in decode order. */
export async function scanVideo(tools: FfmpegTools, file: string, info: VideoInfo, options: ScanOptions = {}): Promise<ScoredFrame[]> {
  const frames: ScoredFrame[] = [];
  const times = new Map<number, number>();
  let parseError: Error | undefined;
  const parser = new PgmStreamParser((image) => {
    const index = frames.length;
    frames.push({ index, timeS: NaN, sharpness: laplacianVariance(image), thumbnail: thumbnail(image) });
    options.onFrame?.(frames.length);
  });
  const result = await runTool({
    file: tools.ffmpeg,
    args: [
      '-nostdin', '-hide_banner', '-loglevel', 'info', '-i', file,
      '-map', '0:v:0', '-an', '-sn', '-dn',
      '-vf', `scale=w='min(${SCAN_WIDTH},iw)':h=-2:flags=area,format=gray,showinfo`,
      ...frameTimingArgs(tools),
      '-f', 'image2pipe', '-c:v', 'pgm', 'pipe:1',
    ],
    signal: options.signal,
    logFile: options.logFile,
    onStart: options.onStart,
    onStdoutData: (chunk) => {
      if (parseError) return;
      try {
        parser.push(chunk);
      } catch (error) {
        parseError = error as Error;
      }
    },
    onLine: (line) => {
      const shown = parseShowinfo(line);
      if (shown && shown.timeS !== undefined) times.set(shown.n, shown.timeS);
    },
  });
  if (result.code !== 0) throw badInput(file, `ffmpeg could not decode the video (exit ${result.code}): ${result.tail.slice(-3).join(' ')}`);
  if (parseError) throw badInput(file, `unexpected output from ffmpeg while scanning frames: ${parseError.message}`);
  if (frames.length === 0) throw badInput(file, 'the video decoded to no frames');
  for (const frame of frames) frame.timeS = times.get(frame.index) ?? frame.index / info.fps;
  return frames;
}

export interface ExtractOptions {
  /** Long side of the written images (never upscaled). */
  maxSize: number;
  signal?: AbortSignal;
  logFile?: string;
  onFrame?: (count: number) => void;
  onStart?: (pid: number) => void;
}

/**
 * ffmpeg's select expression for these frame numbers: eq(n, i) terms summed in parenthesised
 * groups of 10, nested, so the parser's recursion stays shallow. A flat sum of more than ~100
 * terms fails ("Cannot allocate memory": libavutil/eval.c's depth limit): 150 frames of a
 * 150-frame clip could not be extracted.
 */
export function frameSelectExpression(indexes: readonly number[]): string {
  let terms = indexes.map((i) => `eq(n\\,${i})`);
  while (terms.length > 10) {
    const grouped: string[] = [];
    for (let k = 0; k < terms.length; k += 10) grouped.push(`(${terms.slice(k, k + 10).join('+')})`);
    terms = grouped;
  }
  return terms.join('+');
}

/**
 * Pass 2: writes frame `indexes[i]` to `files[i]` (JPEG, quality 2 on ffmpeg's 2..31 scale). Each
 * file appears complete or not at all (temporary folder, then rename).
 */
export async function extractFrames(tools: FfmpegTools, file: string, indexes: readonly number[], files: readonly string[], workDir: string, options: ExtractOptions): Promise<void> {
  if (indexes.length === 0) return;
  const order = indexes.map((index, i) => ({ index, file: files[i] })).sort((a, b) => a.index - b.index);
  const temp = path.join(workDir, 'extract-tmp');
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { recursive: true });
  // A filter script rather than -vf: hundreds of frame numbers would overflow Windows' command line.
  const select = frameSelectExpression(order.map((o) => o.index));
  const size = options.maxSize;
  const script = path.join(workDir, 'extract-filter.txt');
  await writeFile(script, `select=${select},scale=w='min(iw,${size})':h='min(ih,${size})':force_original_aspect_ratio=decrease:flags=area,showinfo`);
  let written = 0;
  const result = await runTool({
    file: tools.ffmpeg,
    args: [
      '-nostdin', '-hide_banner', '-loglevel', 'info', '-i', file,
      '-map', '0:v:0', '-an', '-sn', '-dn',
      '-filter_script:v', script,
      ...frameTimingArgs(tools),
      '-q:v', '2', path.join(temp, '%06d.jpg'),
    ],
    signal: options.signal,
    logFile: options.logFile,
    onStart: options.onStart,
    onLine: (line) => {
      if (parseShowinfo(line)) options.onFrame?.(++written);
    },
  });
  if (result.code !== 0) throw badInput(file, `ffmpeg could not extract frames (exit ${result.code}): ${result.tail.slice(-3).join(' ')}`);
  const produced = (await readdir(temp)).filter((f) => f.endsWith('.jpg')).sort();
  if (produced.length !== order.length) {
    throw badInput(file, `ffmpeg wrote ${produced.length} frames where ${order.length} were selected (frame numbering differs between passes?)`);
  }
  for (let i = 0; i < order.length; i++) await rename(path.join(temp, produced[i]), order[i].file);
  await rm(temp, { recursive: true, force: true });
  await rm(script, { force: true });
}
