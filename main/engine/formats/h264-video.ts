/**
 * H.264 MP4 through ffmpeg: raw RGB frames piped to its stdin, libx264 into yuv420p (what every
 * player and browser decodes; it needs even frame sizes), `+faststart` so the index sits at the
 * front and a browser plays the file while it downloads. ffmpeg is not bundled (its licence and
 * size): the binary is `ARGONAUT_FFMPEG`, else `ffmpeg` on PATH; a missing one is an error that
 * says how to install it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ArgonautError } from '../../../shared/rpc/errors.js';

export interface H264Settings {
  width: number;
  height: number;
  fps: number;
  /** x264's constant rate factor: 18 is visually lossless for renders; lower is larger. */
  crf?: number;
}

export const FFMPEG_INSTALL_HINT = 'install ffmpeg (Debian/Ubuntu: sudo apt install ffmpeg; macOS: brew install ffmpeg; Windows: winget install ffmpeg, or https://ffmpeg.org/download.html) or set ARGONAUT_FFMPEG to its path';

/** The ffmpeg binary to run. */
export function ffmpegBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.ARGONAUT_FFMPEG || 'ffmpeg';
}

/** Why a frame size cannot be encoded, or undefined when it can. */
export function h264SizeProblem(width: number, height: number): string | undefined {
  if (width % 2 || height % 2) return `H.264 in yuv420p needs an even width and height, got ${width}x${height}`;
  return undefined;
}

/** ffmpeg's arguments for rgb24 frames of `settings` on stdin -> an MP4 at `output` (the container named, so the file may have any extension). */
export function h264EncodeArgs(settings: H264Settings, output: string): string[] {
  const problem = h264SizeProblem(settings.width, settings.height);
  if (problem) throw new Error(`h264EncodeArgs: ${problem}`);
  return [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
    '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${settings.width}x${settings.height}`, '-framerate', String(settings.fps), '-i', 'pipe:0',
    '-an', '-c:v', 'libx264', '-preset', 'medium', '-crf', String(settings.crf ?? 18), '-pix_fmt', 'yuv420p',
    '-movflags', '+faststart', '-f', 'mp4', output,
  ];
}

/** The last `count` non-empty lines of ffmpeg's stderr. */
export function lastLines(text: string, count = 6): string {
  return text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).slice(-count).join(' | ');
}

export interface H264Encoder {
  /** Writes one frame (rgb24, width * height * 3 bytes), waiting while ffmpeg's pipe is full. */
  write(frame: Uint8Array): Promise<void>;
  /** Closes the input and waits for ffmpeg to finish the file. */
  finish(): Promise<void>;
  /** Kills ffmpeg and waits for it to exit (the output is then incomplete). */
  kill(): Promise<void>;
}

/** Starts ffmpeg writing `output`. Errors name `target` (the file the user asked for) and quote ffmpeg's last lines. */
export function startH264Encoder(settings: H264Settings, output: string, target: string, binary = ffmpegBinary()): H264Encoder {
  const child: ChildProcess = spawn(binary, h264EncodeArgs(settings, output), { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192); // the tail is what says why
  });
  let failure: ArgonautError | undefined;
  const exited = new Promise<void>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      failure ??= error.code === 'ENOENT'
        ? new ArgonautError('unavailable', `${target}: cannot encode the video: ffmpeg was not found (${binary}); ${FFMPEG_INSTALL_HINT}`, { file: target, ffmpeg: binary })
        : new ArgonautError('internal', `${target}: cannot start ffmpeg (${binary}): ${error.message}`, { file: target, ffmpeg: binary });
      resolve();
    });
    child.on('close', (code, signal) => {
      if (code !== 0 && !failure) {
        failure = new ArgonautError('internal', `${target}: ffmpeg failed (${signal ? `killed by ${signal}` : `exit code ${code}`}): ${lastLines(stderr) || 'no message'}`, { file: target, ffmpeg: binary });
      }
      resolve();
    });
  });
  // A write after ffmpeg died fails with EPIPE; the exit says why, so the pipe error is not the story.
  child.stdin!.on('error', () => undefined);
  const check = () => {
    if (failure) throw failure;
  };
  return {
    async write(frame) {
      check();
      const stdin = child.stdin!;
      if (!stdin.write(frame)) {
        await Promise.race([new Promise<void>((resolve) => stdin.once('drain', () => resolve())), exited]);
      }
      check();
    },
    async finish() {
      check();
      child.stdin!.end();
      await exited;
      check();
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
