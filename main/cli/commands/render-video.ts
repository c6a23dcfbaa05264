/**
 * `render p.argo --path path.json | --orbit --out video.mp4`: a camera path as an H.264 MP4
 * (main/engine/project/video.ts). The path file is the schema's JSON (shared/scene/camera-path.ts);
 * a file with NaN or Infinity (Python's json writes them) is refused naming the field, as is any
 * other schema problem (exit 3).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';
import { CameraPathSchema, type CameraPath } from '../../../shared/scene/camera-path.js';
import { openGpu } from '../../engine/gpu/context.js';
import type { Project } from '../../engine/project/project.js';
import { projectViews } from '../../engine/project/views.js';
import { checkVideoSettings, projectOrbit, renderProjectVideo } from '../../engine/project/video.js';
import { UsageError } from '../args.js';
import type { CommandContext } from '../command.js';

const NON_FINITE = '\u0000non-finite:';

/** Reads and validates a camera path file; every problem names the file and the field. */
export async function readCameraPathFile(file: string): Promise<CameraPath> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw badInput(file, code === 'ENOENT' ? 'camera path file not found' : `cannot read the camera path file (${code ?? (error as Error).message})`);
  }
  // NaN and Infinity are not JSON, but Python writes them: kept as markers so the error names the field.
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)(?![\w.])/g, (token, bare: string | undefined) => (bare ? JSON.stringify(NON_FINITE + bare) : token));
  let raw: unknown;
  try {
    raw = JSON.parse(marked);
  } catch (error) {
    throw badInput(file, `not valid JSON (${(error as Error).message})`);
  }
  const parsed = CameraPathSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const value = issue.path.reduce<unknown>((at, key) => (at as Record<string | number, unknown> | undefined)?.[key as string], raw);
      const message = typeof value === 'string' && value.startsWith(NON_FINITE) ? `expected a finite number, got ${value.slice(NON_FINITE.length)}` : issue.message;
      return `${issue.path.join('.') || '(root)'}: ${message}`;
    });
    throw badInput(file, [...new Set(problems)].join('; '));
  }
  return parsed.data;
}

const positiveNumber = (value: unknown, flag: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--${flag}: expected a positive number, got "${value}"`);
  return n;
};

/** The video branch of `render` (a project and --path or --orbit). */
export async function renderVideoCommand(project: Project, context: CommandContext): Promise<void> {
  const { options, out, cwd, engineOptions, signal } = context;
  if (options.path !== undefined && options.orbit) throw new UsageError('give --path path.json or --orbit, not both');
  if (options.view !== undefined || options.camera !== undefined) throw new UsageError('--view and --camera render an image; a video takes --path or --orbit');
  const background = options.background as string | undefined;
  const outFile = path.resolve(cwd, options.out as string);
  const warn = (m: string) => out.warn(m);
  const duration = positiveNumber(options.duration, 'duration');
  if (duration !== undefined && !options.orbit) throw new UsageError('--duration is for --orbit (a path file has its own)');
  const cameraPath = options.orbit
    ? await projectOrbit(project, { duration: duration ?? 4, turns: positiveNumber(options.turns, 'turns') }, warn)
    : await readCameraPathFile(path.resolve(cwd, options.path as string));
  // Default size: the training views' (even), so the video frames what the photos framed.
  let width = options.width as number | undefined;
  let height = options.height as number | undefined;
  if ((width === undefined) !== (height === undefined)) throw new UsageError('give both --width and --height, or neither');
  if (width === undefined || height === undefined) {
    const first = project.manifest.dataset ? (await projectViews(project)).views[0]?.camera : undefined;
    width = first ? first.width - (first.width % 2) : 1280;
    height = first ? first.height - (first.height % 2) : 720;
  }
  const settings = checkVideoSettings({ width, height, fps: (options.fps as number | undefined) ?? 30 }, '--width/--height/--fps');
  const gpu = await openGpu(engineOptions);
  try {
    const result = await renderProjectVideo(gpu, project, cameraPath, settings, outFile, {
      signal,
      warn,
      ...(background ? { background: background === 'white' ? [1, 1, 1] as const : [0, 0, 0] as const } : {}),
      ...(options.antialiased ? { antialiased: true } : {}),
      ...(options['sh-degree'] !== undefined ? { shDegree: options['sh-degree'] as number } : {}),
      onProgress: ({ frame, frames }) => out.progress({ stage: 'video.render', step: frame, total: frames }, frame === frames),
    });
    out.result(
      { out: result.out, path: cameraPath.id, frames: result.frames, width: result.width, height: result.height, fps: result.fps, duration_s: result.durationS, bytes: result.bytes, seconds: result.seconds, project: project.file, run: result.run, splats: result.splats },
      `rendered ${result.frames} frames (${result.width}x${result.height}, ${result.fps} fps, ${result.durationS.toFixed(2)} s) of '${cameraPath.name}' in ${result.seconds.toFixed(1)} s -> ${result.out}`,
    );
  } finally {
    gpu.destroy();
  }
}
