/**
 * A camera path as an MP4 (issue 17): every frame rendered forward-only by the rasterizer from the
 * project's splats (projectSplats: edits applied) at the path's sample for that frame
 * (shared/scene/camera-path-sample.ts, the same the Viewer previews), piped to ffmpeg
 * (formats/h264-video.ts). The GPU renders frame k + 1 while ffmpeg encodes frame k.
 *
 * The file appears whole or not at all: ffmpeg writes a temporary file beside the target, which
 * is renamed over it at the end; a failure or a cancel (AbortSignal: ffmpeg killed) removes it.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { cameraAt, orbitPath, pathFrames } from '../../../shared/scene/camera-path-sample.js';
import { VideoSettingsSchema, type CameraPath, type VideoSettings } from '../../../shared/scene/camera-path.js';
import { orbitFromCameras, orbitFromPoints, type OrbitTiming } from '../../../shared/scene/scene-orbit.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { writeError } from '../formats/atomic-file.js';
import { ffmpegBinary, h264SizeProblem, startH264Encoder } from '../formats/h264-video.js';
import type { GpuContext } from '../gpu/context.js';
import { createImageRenderer, type RenderImageOptions } from '../render/render-image.js';
import type { Project } from './project.js';
import { projectSplats } from './splats.js';
import { projectViews } from './views.js';

export interface VideoProgress {
  /** Frames rendered and handed to the encoder. */
  frame: number;
  frames: number;
}

export interface RenderVideoOptions extends RenderImageOptions {
  signal?: AbortSignal;
  onProgress?: (progress: VideoProgress) => void;
  /** The ffmpeg binary (default: ARGONAUT_FFMPEG, else `ffmpeg` on PATH). */
  ffmpeg?: string;
}

export interface VideoResult {
  out: string;
  frames: number;
  width: number;
  height: number;
  fps: number;
  durationS: number;
  bytes: number;
  seconds: number;
}

/** Refuses settings the encoder cannot take, naming `source` (a file or an option) and the field. */
export function checkVideoSettings(settings: VideoSettings, source: string): VideoSettings {
  const parsed = VideoSettingsSchema.safeParse(settings);
  if (!parsed.success) throw badInput(source, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const problem = h264SizeProblem(parsed.data.width, parsed.data.height);
  if (problem) throw badInput(source, problem);
  return parsed.data;
}

const cancelled = (out: string) => new ArgonautError('cancelled', `${out}: video render cancelled; no file written`, { file: out });

/** Renders `path` from `splats` into the MP4 `out` (see the header). */
export async function renderPathVideo(gpu: GpuContext, splats: SplatSet, cameraPath: CameraPath, settings: VideoSettings, out: string, options: RenderVideoOptions): Promise<VideoResult> {
  const started = performance.now();
  const { width, height, fps } = checkVideoSettings(settings, out);
  const frames = pathFrames(cameraPath, fps);
  if (frames.length === 0) throw badInput(out, `the path '${cameraPath.id}' is shorter than one frame at ${fps} fps`);
  const folder = await stat(path.dirname(out)).catch(() => undefined);
  if (!folder?.isDirectory()) throw badInput(out, 'the folder for the video does not exist');
  const { signal } = options;
  if (signal?.aborted) throw cancelled(out);
  // The name removeStaleTemps recognises, so a killed process's leftover is cleaned later.
  const temp = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const renderer = await createImageRenderer(gpu, splats, options);
  const encoder = startH264Encoder({ width, height, fps }, temp, out, options.ffmpeg ?? ffmpegBinary());
  let stop: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(cancelled(out));
    signal?.addEventListener('abort', stop, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    let pending: Promise<void> = Promise.resolve();
    for (const frame of frames) {
      const image = await Promise.race([renderer.render(cameraAt(frame, width, height)), aborted]);
      await Promise.race([pending, aborted]); // the previous frame is in ffmpeg's pipe
      pending = encoder.write(toRgb24(image.rgba, width * height));
      pending.catch(() => undefined); // awaited next round; a failure meanwhile is not unhandled
      options.onProgress?.({ frame: frame.index + 1, frames: frames.length });
    }
    await Promise.race([pending, aborted]);
    await Promise.race([encoder.finish(), aborted]);
    await syncFile(temp, out);
    await rename(temp, out).catch((error: unknown) => {
      throw writeError(out, error);
    });
  } catch (error) {
    await encoder.kill();
    await unlink(temp).catch(() => undefined);
    throw error;
  } finally {
    if (stop) signal?.removeEventListener('abort', stop);
    renderer.destroy();
  }
  const bytes = (await stat(out)).size;
  return { out, frames: frames.length, width, height, fps, durationS: frames.length / fps, bytes, seconds: (performance.now() - started) / 1000 };
}

/** The project's splats (edits applied) along `path`, with its newest run's background and filter. */
export async function renderProjectVideo(gpu: GpuContext, project: Project, cameraPath: CameraPath, settings: VideoSettings, out: string, options: Omit<RenderVideoOptions, keyof RenderImageOptions> & Partial<RenderImageOptions> & { warn?: (m: string) => void }): Promise<VideoResult & { run: string; splats: number }> {
  const found = await projectSplats(project, options.warn);
  if (options.shDegree !== undefined && !(options.shDegree >= 0 && options.shDegree <= found.splats.shDegree)) throw badInput(found.file, `SH degree ${options.shDegree} asked; the splats have degree ${found.splats.shDegree}`);
  const background = options.background ?? (project.manifest.dataset ? (await projectViews(project)).background : [0, 0, 0]);
  const result = await renderPathVideo(gpu, found.splats, cameraPath, settings, out, {
    ...options,
    background,
    antialiased: options.antialiased ?? Boolean(found.run.params['train.antialiased']),
    shDegree: options.shDegree ?? found.splats.shDegree,
  });
  return { ...result, run: found.run.id, splats: found.splats.count };
}

/** The project's orbit (shared/scene/scene-orbit.ts): around its training cameras, else its splats. */
export async function projectOrbit(project: Project, timing: OrbitTiming, warn?: (m: string) => void): Promise<CameraPath> {
  const cameras = project.manifest.dataset ? (await projectViews(project)).views.map((v) => v.camera) : [];
  const geometry = orbitFromCameras(cameras, timing) ?? orbitFromPoints((await projectSplats(project, warn)).splats.means, timing);
  return orbitPath(geometry);
}

/** The rasterizer's RGBA floats (display values in [0, 1], as PNGs are written) -> 8-bit RGB. */
export function toRgb24(rgba: Float32Array, pixels: number): Uint8Array {
  const rgb = new Uint8Array(pixels * 3);
  for (let p = 0; p < pixels; p++) {
    for (let c = 0; c < 3; c++) rgb[3 * p + c] = Math.round(Math.min(1, Math.max(0, rgba[4 * p + c])) * 255);
  }
  return rgb;
}

/** fsync before the rename: a crash must not leave a renamed but empty video. */
async function syncFile(file: string, target: string): Promise<void> {
  try {
    const handle = await open(file, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw writeError(target, error);
  }
}
