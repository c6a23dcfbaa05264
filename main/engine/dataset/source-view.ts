/**
 * What the format modules hand to dataset.ts (full-resolution views, before split and downscale),
 * and the image-file checks they share.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { probeImage } from '../formats/images.js';
import type { DatasetFormat, Distortion, Rgb } from './types.js';

export interface SourceView {
  name: string;
  imagePath: string;
  /** Full resolution, after undistortion (the distortion, if any, is in `distortion`). */
  camera: PinholeCamera;
  /** Set when the dataset defines its own split. */
  split?: 'train' | 'test';
  distortion?: Distortion;
  /** The view's mask file (masks.ts). */
  maskPath?: string;
  /** The file that declared the view, and where in it ("record 3", "line 12", "frames[4]"). */
  file: string;
  source: string;
}

export interface SourceDataset {
  root: string;
  format: DatasetFormat;
  views: SourceView[];
  points?: { positions: Float32Array; colors: Uint8Array };
  /** The format's own default background (NeRF-synthetic: white). */
  defaultBackground?: Rgb;
}

export async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

export async function isFolder(folder: string): Promise<boolean> {
  try {
    return (await stat(folder)).isDirectory();
  } catch {
    return false;
  }
}

/** Plain code-unit order, like Python's sorted() on image names in 3DGS. */
export function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** `folder/name`, refusing names that are absolute or climb out of `folder`. */
export function resolveInside(folder: string, name: string, file: string, where: string): string {
  const resolved = path.resolve(folder, name);
  const relative = path.relative(folder, resolved);
  if (name.length === 0 || path.isAbsolute(name) || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw badInput(file, `${where}: image name "${name}" is empty, absolute or outside ${folder}`);
  }
  return resolved;
}

/**
 * The displayed size of a view's image, checked to exist and be a PNG or JPEG; when the dataset
 * declares a size, it must match.
 */
export async function checkViewImage(
  imagePath: string,
  file: string,
  where: string,
  declared?: { width: number; height: number },
): Promise<{ width: number; height: number }> {
  let size;
  try {
    size = await probeImage(imagePath);
  } catch (error) {
    if (error instanceof ArgonautError) throw new ArgonautError(error.code, `${error.message} (image of ${file} ${where})`, error.details);
    throw error;
  }
  if (declared && (declared.width !== size.width || declared.height !== size.height)) {
    throw badInput(imagePath, `image is ${size.width}x${size.height} but ${file} ${where} declares ${declared.width}x${declared.height}`);
  }
  return { width: size.width, height: size.height };
}

/**
 * `fn` over `items` with at most `limit` in flight, results in order (image probes: no EMFILE on
 * big datasets). A failure stops new work; once what is in flight settles, the error of the
 * earliest failing item is thrown, so a dataset with bad images names the same one on every run
 * (every item before it was started, being started in order, and checked).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const state: { failed?: { index: number; error: unknown } } = {};
  const fail = (index: number, error: unknown): void => {
    if (!state.failed || index < state.failed.index) state.failed = { index, error };
  };
  const worker = async (): Promise<void> => {
    while (next < items.length && !state.failed) {
      const index = next++;
      try {
        results[index] = await fn(items[index], index);
      } catch (error) {
        fail(index, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (state.failed) throw state.failed.error;
  return results;
}
