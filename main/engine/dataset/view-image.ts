/**
 * A view's image as the trainer wants it: decoded, EXIF-oriented, composited over the background,
 * undistorted to the view's pinhole camera, area-downscaled, as RGB floats in [0, 1].
 *
 * The processed image is quantized to 8 bits (as 3DGS's PIL path does) and that is what the disk
 * cache stores, so a cache hit returns exactly what a fresh decode would. Order matters and is
 * fixed: composite first (straight alpha must not be filtered), then undistort and downscale.
 */
import os from 'node:os';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { fallbackCacheDir, readCachedImage, resolveCacheDir, writeCachedImage, type ImageCacheKey } from '../formats/image-cache.js';
import { bytesToUnit, compositeToBytes, compositeToRgb, downscaleArea, downscaledSize, quantizeToBytes } from '../formats/image-ops.js';
import { imageDecoder, imageFileStat, readImageBytes, type Image, type ImageDecoder } from '../formats/images.js';
import type { Dataset, DatasetView, Rgb } from './types.js';
import { lensOf, undistortImage } from './distortion.js';
import { mapLimit } from './source-view.js';

export interface ViewImageOptions {
  /** Must equal the downscale the dataset was loaded with. Default 1. */
  downscale?: number;
  /** Colour under transparent pixels. Default: the dataset's, else black. */
  background?: Rgb;
  /** Folder of the decoded-image cache; null disables it. Default: os.tmpdir()/argonaut-cache (loadViewImages: the dataset's). */
  cacheDir?: string | null;
  /** The decoder. Default: sharp's (imageDecoder); tests wrap it. */
  decoder?: ImageDecoder;
  /** Non-fatal problems (a cache that cannot be written). Default console.warn. */
  warn?: (message: string) => void;
}

export interface ViewImage {
  width: number;
  height: number;
  /** Row-major RGB, H * W * 3 values in [0, 1]. */
  rgb: Float32Array;
}

const BLACK: Rgb = [0, 0, 0];

/**
 * Images loaded at once by loadViewImages (and the import check): sharp decodes on libuv's pool
 * (4 threads by default) while this thread composites and downscales the ones already decoded.
 */
export const IMAGES_IN_FLIGHT = 2 * Math.max(2, Math.min(8, os.availableParallelism()));

/** Decoded pixels -> the view's final 8-bit RGB. Pure; exported for tests. */
export function processViewPixels(image: Image, view: DatasetView, downscale: number, background: Rgb): Image {
  const target = downscaledSize(image.width, image.height, downscale);
  if (!view.distortion && target.width === image.width && target.height === image.height) {
    return { width: image.width, height: image.height, channels: 3, data: compositeToBytes(image, background) };
  }
  let rgb = compositeToRgb(image, background);
  if (view.distortion) rgb = undistortImage(rgb, lensOf(view.distortion, view.imagePath, 'view'));
  rgb = downscaleArea(rgb, downscale);
  return { width: rgb.width, height: rgb.height, channels: 3, data: quantizeToBytes(rgb.data) };
}

function toViewImage(image: Image): ViewImage {
  return { width: image.width, height: image.height, rgb: bytesToUnit(image.data) };
}

export async function loadViewImage(view: DatasetView, options: ViewImageOptions = {}): Promise<ViewImage> {
  return toViewImage(await loadViewImageRgb8(view, options));
}

/** As loadViewImage, the final 8-bit RGB (what the cache holds; no conversion to floats). */
export async function loadViewImageRgb8(view: DatasetView, options: ViewImageOptions = {}): Promise<Image> {
  const downscale = options.downscale ?? 1;
  if (!Number.isFinite(downscale) || downscale < 1) throw new ArgonautError('invalid_argument', `downscale must be a finite number >= 1, got ${downscale}`);
  const background = options.background ?? BLACK;
  const cacheDir = options.cacheDir === undefined ? fallbackCacheDir() : options.cacheDir;
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const file = view.imagePath;
  const { size, mtimeMs } = await imageFileStat(file);
  const key: ImageCacheKey = {
    absolutePath: path.resolve(file),
    size,
    mtimeMs,
    downscale,
    background: [...background],
    undistortion: view.distortion ? { model: view.distortion.model, params: view.distortion.params } : null,
  };
  const expected = `${view.camera.width}x${view.camera.height}`;
  if (cacheDir) {
    const hit = await readCachedImage(cacheDir, key);
    if (hit && hit.channels === 3 && `${hit.width}x${hit.height}` === expected) return hit;
  }
  const decoded = await (options.decoder ?? imageDecoder).decode(await readImageBytes(file), file);
  const target = downscaledSize(decoded.width, decoded.height, downscale);
  if (`${target.width}x${target.height}` !== expected) {
    throw badInput(
      file,
      `image is ${decoded.width}x${decoded.height}, which at downscale ${downscale} gives ${target.width}x${target.height}, but the view's camera is ${expected} (was the dataset loaded with another downscale?)`,
    );
  }
  const processed = processViewPixels(decoded, view, downscale, background);
  if (cacheDir) {
    try {
      await writeCachedImage(cacheDir, key, processed);
    } catch (error) {
      warn(`${file}: could not write the image cache in ${cacheDir}: ${(error as Error).message}`);
    }
  }
  return processed;
}

export interface LoadViewImagesOptions extends ViewImageOptions {
  /** Which views; default all of the dataset's. */
  views?: readonly DatasetView[];
  onProgress?: (done: number, total: number) => void;
}

/**
 * Many views at once (IMAGES_IN_FLIGHT: sharp decodes them in parallel), with the cache in
 * `<dataset>/.argonaut-cache` when the dataset folder may be written, else os.tmpdir().
 */
export async function loadViewImages(dataset: Dataset, options: LoadViewImagesOptions = {}): Promise<ViewImage[]> {
  const views = options.views ?? dataset.views;
  const cacheDir = options.cacheDir === undefined ? await resolveCacheDir(dataset.root) : options.cacheDir;
  let done = 0;
  return mapLimit(views, IMAGES_IN_FLIGHT, async (view) => {
    const image = await loadViewImage(view, { ...options, background: options.background ?? dataset.background, cacheDir });
    options.onProgress?.(++done, views.length);
    return image;
  });
}
