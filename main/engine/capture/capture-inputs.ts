/**
 * The inputs of a capture turned into images: what each path is (a video file or a photo folder),
 * its name inside the capture, and, for video, scan -> select -> extract with each step's result
 * kept in the input's work folder so a second run skips it:
 *   scan.json       every frame's time, sharpness and thumbnail (keyed by the file's size and mtime)
 *   selection.json  the frames chosen and the ones dropped, with why (rewritten every run: cheap)
 *   images/<input>/frame_NNNNNN.jpg  extracted only when missing; files not selected are removed
 */
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';
import { writeFileAtomic } from '../formats/atomic-file.js';
import { selectFrames, type DroppedFrame, type ScoredFrame, type Selection, type SelectionOptions } from './frame-selection.js';
import { PHOTO_EXTENSIONS } from './photos.js';
import { isFile } from '../dataset/source-view.js';
import { extractFrames, probeVideo, scanVideo, SCAN_WIDTH, type FfmpegTools, type VideoInfo } from './video.js';

export interface CaptureInput {
  /** As given, resolved. */
  path: string;
  kind: 'video' | 'photos';
  /** Folder name under images/ and the work folder ("apple", "apple-2"). */
  name: string;
}

/** Classifies each path and gives it a unique, file-system-safe name. */
export async function resolveInputs(paths: readonly string[]): Promise<CaptureInput[]> {
  if (paths.length === 0) throw badInput('(no input)', 'give at least one video file or photo folder');
  const used = new Set<string>();
  const inputs: CaptureInput[] = [];
  for (const given of paths) {
    const resolved = path.resolve(given);
    let info;
    try {
      info = await stat(resolved);
    } catch {
      throw badInput(resolved, 'not found (expected a video file or a folder of photos)');
    }
    const kind = info.isDirectory() ? 'photos' : 'video';
    if (kind === 'video' && PHOTO_EXTENSIONS.has(path.extname(resolved).toLowerCase())) {
      throw badInput(resolved, 'is a single photo: give the folder that holds the photos (structure from motion needs many overlapping views)');
    }
    if (kind === 'photos' && ((await isFile(path.join(resolved, 'sparse', '0', 'cameras.bin'))) || (await isFile(path.join(resolved, 'transforms.json'))))) {
      throw badInput(resolved, 'is already a posed dataset (it has camera poses): train on it directly, or import it, instead of capturing it again');
    }
    const base = (kind === 'video' ? path.parse(resolved).name : path.basename(resolved)).replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'input';
    let name = base;
    for (let k = 2; used.has(name.toLowerCase()); k++) name = `${base}-${k}`;
    used.add(name.toLowerCase());
    inputs.push({ path: resolved, kind, name });
  }
  return inputs;
}

/** Frames per clip: `total` shared in proportion to duration, at least 2 each. */
export function framesPerClip(total: number, durationsS: readonly number[]): number[] {
  const sum = durationsS.reduce((s, d) => s + Math.max(d, 0), 0);
  return durationsS.map((d) => Math.max(2, Math.round(sum > 0 ? (total * Math.max(d, 0)) / sum : total / durationsS.length)));
}

interface ScanFile {
  version: 1;
  source: { size: number; mtimeMs: number };
  scanWidth: number;
  frames: { index: number; timeS: number; sharpness: number; thumbnail: { width: number; height: number; data: string } }[];
}

export interface VideoProgress {
  stage: 'scan' | 'extract';
  fraction: number;
  skipped?: boolean;
  message?: string;
}

export interface VideoOutcome {
  info: VideoInfo;
  framesDecoded: number;
  selection: Selection;
  /** Selected frames with their image names ("<input>/frame_000012.jpg"), in time order. */
  images: { name: string; index: number; timeS: number; sharpness: number }[];
  /** Which steps reused earlier results. */
  resumed: ('scan' | 'extract')[];
}

async function readScan(file: string, source: { size: number; mtimeMs: number }): Promise<ScoredFrame[] | null> {
  try {
    const json = JSON.parse(await readFile(file, 'utf8')) as ScanFile;
    if (json.version !== 1 || json.scanWidth !== SCAN_WIDTH || json.source.size !== source.size || json.source.mtimeMs !== source.mtimeMs) return null;
    return json.frames.map((f) => ({ index: f.index, timeS: f.timeS, sharpness: f.sharpness, thumbnail: { width: f.thumbnail.width, height: f.thumbnail.height, data: new Uint8Array(Buffer.from(f.thumbnail.data, 'base64')) } }));
  } catch {
    return null;
  }
}

export function frameFileName(index: number): string {
  return `frame_${String(index).padStart(6, '0')}.jpg`;
}

/** One clip: probe, scan (or reuse the scan), select, extract what is missing into `imagesDir/<name>/`. */
export async function processVideo(
  tools: FfmpegTools,
  input: CaptureInput,
  dirs: { imagesDir: string; workDir: string },
  options: { info?: VideoInfo; frames: number; maxSize: number; selection?: Omit<SelectionOptions, 'count' | 'durationS'>; signal?: AbortSignal; onProgress?: (p: VideoProgress) => void; onLog?: (level: 'info' | 'warn', message: string) => void },
): Promise<VideoOutcome> {
  const { signal } = options;
  const workDir = path.join(dirs.workDir, input.name);
  const outDir = path.join(dirs.imagesDir, input.name);
  await mkdir(workDir, { recursive: true });
  await mkdir(outDir, { recursive: true });
  const logFile = path.join(workDir, 'ffmpeg.log');
  const onStart = (pid: number): void => options.onLog?.('info', `running ffmpeg on ${input.path} (pid ${pid})`);
  const info = options.info ?? (await probeVideo(tools, input.path, signal));
  const source = await stat(input.path);
  const sourceKey = { size: source.size, mtimeMs: source.mtimeMs };
  const resumed: VideoOutcome['resumed'] = [];

  const scanFile = path.join(workDir, 'scan.json');
  let frames = await readScan(scanFile, sourceKey);
  if (frames) {
    resumed.push('scan');
    options.onProgress?.({ stage: 'scan', fraction: 1, skipped: true, message: `${frames.length} frames already scored` });
  } else {
    const expected = info.frameCount ?? Math.max(1, Math.round(info.durationS * info.fps));
    frames = await scanVideo(tools, input.path, info, {
      signal,
      logFile,
      onStart,
      onFrame: (count) => {
        if (count % 10 === 0) options.onProgress?.({ stage: 'scan', fraction: Math.min(1, count / expected), message: `${count} frames scored` });
      },
    });
    const json: ScanFile = {
      version: 1,
      source: sourceKey,
      scanWidth: SCAN_WIDTH,
      frames: frames.map((f) => ({ index: f.index, timeS: f.timeS, sharpness: f.sharpness, thumbnail: { width: f.thumbnail.width, height: f.thumbnail.height, data: Buffer.from(f.thumbnail.data).toString('base64') } })),
    };
    await writeFileAtomic(scanFile, JSON.stringify(json));
    options.onProgress?.({ stage: 'scan', fraction: 1, message: `${frames.length} frames scored` });
  }

  const selection = selectFrames(frames, { ...options.selection, count: options.frames, durationS: info.durationS || undefined });
  const images = selection.selected.map((f) => ({ name: `${input.name}/${frameFileName(f.index)}`, index: f.index, timeS: f.timeS, sharpness: f.sharpness }));
  const describe = (d: DroppedFrame) => ({ index: d.index, timeS: d.timeS, reason: d.reason, value: d.value, ...(d.of !== undefined ? { of: d.of } : {}) });
  await writeFileAtomic(
    path.join(workDir, 'selection.json'),
    `${JSON.stringify({ source: input.path, framesDecoded: frames.length, segments: selection.segments, medianSharpness: selection.medianSharpness, selected: images, dropped: selection.dropped.map(describe) }, null, 1)}\n`,
  );
  const blurry = selection.dropped.filter((d) => d.reason === 'blurry').length;
  const duplicates = selection.dropped.filter((d) => d.reason === 'duplicate').length;
  options.onLog?.('info', `${input.name}: ${images.length} of ${frames.length} frames selected (${selection.segments} segments; dropped ${blurry} blurry, ${duplicates} duplicate)`);

  // Frames extracted at another size or from another file are not reused.
  const extractKey = JSON.stringify({ ...sourceKey, maxSize: options.maxSize });
  const extractFile = path.join(workDir, 'extract.json');
  const previousKey = await readFile(extractFile, 'utf8').catch(() => '');
  const wanted = new Set(previousKey.trim() === extractKey ? images.map((im) => path.basename(im.name)) : []);
  for (const entry of await readdir(outDir)) if (!wanted.has(entry)) await rm(path.join(outDir, entry), { recursive: true, force: true });
  await writeFileAtomic(extractFile, `${extractKey}\n`);
  const missing = [];
  for (const image of images) if (!(await isFile(path.join(dirs.imagesDir, image.name)))) missing.push(image);
  if (missing.length === 0) {
    resumed.push('extract');
    options.onProgress?.({ stage: 'extract', fraction: 1, skipped: true, message: `${images.length} frames already extracted` });
  } else {
    await extractFrames(tools, input.path, missing.map((m) => m.index), missing.map((m) => path.join(dirs.imagesDir, m.name)), workDir, {
      maxSize: options.maxSize,
      signal,
      logFile,
      onStart,
      onFrame: (count) => options.onProgress?.({ stage: 'extract', fraction: count / missing.length, message: `${count}/${missing.length} frames written` }),
    });
  }
  return { info, framesDecoded: frames.length, selection, images, resumed };
}
