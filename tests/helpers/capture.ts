/**
 * Helpers for capture tests: whether the external tools are installed (tests skip with a printed
 * reason when not), synthetic textures panned like a camera, a box blur, and test videos encoded
 * losslessly (FFV1) so that sharpness measured after decoding is the sharpness we drew.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../../main/engine/capture/tools.js';
import { encodePng } from './images.js';
import { rng } from './random.js';

export interface RgbImage {
  width: number;
  height: number;
  channels: 3;
  data: Uint8Array;
}

/** An installed tool, or a printed reason why the tests that need it skip. */
export function installedTool(name: 'ffmpeg' | 'colmap'): { path: string; available: boolean } {
  const found = findOnPath(name);
  if (!found) console.warn(`skipping tests that need ${name}: not found on PATH (Debian/Ubuntu: sudo apt-get install ${name})`);
  return { path: found ?? '', available: Boolean(found) };
}

/** A random texture of `block` x `block` pixel cells in grey levels with a tint: strong edges everywhere. */
export function blockTexture(width: number, height: number, block: number, seed: number): RgbImage {
  const random = rng(seed);
  const cols = Math.ceil(width / block);
  const cells = Array.from({ length: cols * Math.ceil(height / block) }, () => 40 + Math.floor(random() * 180));
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = cells[Math.floor(y / block) * cols + Math.floor(x / block)];
      data.set([v, Math.min(255, v + 20), Math.max(0, v - 20)], (y * width + x) * 3);
    }
  }
  return { width, height, channels: 3, data };
}

/** The `width` x `height` window of `texture` at (x0, y0): a camera panning over a flat scene. */
export function crop(texture: RgbImage, x0: number, y0: number, width: number, height: number): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) data.set(texture.data.subarray(((y0 + y) * texture.width + x0) * 3, ((y0 + y) * texture.width + x0 + width) * 3), y * width * 3);
  return { width, height, channels: 3, data };
}

/** Box blur of radius r (a (2r+1)^2 mean), separable, edges clamped. */
export function boxBlur(image: RgbImage, radius: number): RgbImage {
  const { width: w, height: h } = image;
  const pass = (src: Uint8Array, horizontal: boolean): Uint8Array => {
    const out = new Uint8Array(src.length);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        for (let c = 0; c < 3; c++) {
          let sum = 0;
          for (let k = -radius; k <= radius; k++) {
            const xx = horizontal ? Math.min(w - 1, Math.max(0, x + k)) : x;
            const yy = horizontal ? y : Math.min(h - 1, Math.max(0, y + k));
            sum += src[(yy * w + xx) * 3 + c];
          }
          out[(y * w + x) * 3 + c] = Math.round(sum / (2 * radius + 1));
        }
      }
    }
    return out;
  };
  return { width: w, height: h, channels: 3, data: pass(pass(image.data, true), false) };
}

export function pngOf(image: RgbImage): Uint8Array {
  return encodePng({ width: image.width, height: image.height, colorType: 2, depth: 8, samples: Array.from(image.data) });
}

/** Encodes frames losslessly (FFV1 in Matroska) at `fps`; returns the video's path. */
export async function writeTestVideo(ffmpeg: string, frames: readonly RgbImage[], file: string, fps = 10): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'argonaut-frames-'));
  try {
    for (let i = 0; i < frames.length; i++) await writeFile(path.join(dir, `${String(i).padStart(5, '0')}.png`), pngOf(frames[i]));
    const result = spawnSync(ffmpeg, ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-framerate', String(fps), '-i', path.join(dir, '%05d.png'), '-c:v', 'ffv1', '-pix_fmt', 'yuv444p', file], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`ffmpeg could not encode the test video: ${result.stderr}`);
    return file;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether a process id is still alive (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
