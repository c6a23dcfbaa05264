/**
 * Recognizes video files by their container signature, so `import` sends a real video to capture
 * and answers an empty or renamed file with what is wrong instead of "not a dataset": MP4 and
 * QuickTime (`ftyp` box), Matroska/WebM (EBML header), AVI (RIFF....AVI ).
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';

export const VIDEO_EXTENSIONS = ['.mp4', '.m4v', '.mov', '.mkv', '.webm', '.avi'];

export function videoContainer(head: Uint8Array): 'mp4' | 'matroska' | 'avi' | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (head.length >= 12 && ascii(4, 8) === 'ftyp') return 'mp4';
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'matroska';
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'AVI ') return 'avi';
  return undefined;
}

/**
 * What a file is, by its first bytes: a video container, or undefined. Refuses an empty file and
 * a file named like a video that is not one, naming the file. Unreadable files answer undefined
 * (the caller's own open names the problem).
 */
export async function sniffVideoFile(file: string): Promise<'mp4' | 'matroska' | 'avi' | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    if (size === 0) throw badInput(file, 'the file is empty (0 bytes)');
    const head = new Uint8Array(16);
    const { bytesRead } = await handle.read(head, 0, 16, 0);
    const container = videoContainer(head.subarray(0, bytesRead));
    const namedVideo = VIDEO_EXTENSIONS.includes(path.extname(file).toLowerCase());
    if (namedVideo && !container) throw badInput(file, 'not a video: no MP4/QuickTime, Matroska/WebM or AVI signature (damaged, or renamed)');
    return container;
  } finally {
    await handle.close();
  }
}

/**
 * For a file given where a dataset is expected: refuses an empty file, a file named like a video
 * that is not one, and a real video (a capture input, not a dataset), each naming the file.
 * Returns for anything else (the dataset loader then says what it expected).
 */
export async function refuseVideoLikeFile(file: string): Promise<void> {
  const container = await sniffVideoFile(file);
  if (container) throw badInput(file, `a ${container} video, not a dataset: capture it into a project instead (argonaut --no-gui import <video> --project p.argo, or "From a video" on Home)`);
}
