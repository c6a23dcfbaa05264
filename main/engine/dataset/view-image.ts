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
import { bytesToUnit, compositeToBytes, compositeToRgb, downscaleArea, downscaledSize, quantizeToBytes, type FloatImage } from '../formats/image-ops.js';
import { imageDecoder, imageFileStat, readImageBytes, type Image, type ImageDecoder } from '../formats/images.js';
import type { Dataset, DatasetView, Rgb } from './types.js';
import { applyUndistortion, lensOf, undistortedPinhole, undistortionMap, type UndistortionMap } from './distortion.js';
import { readViewMask } from './masks.js';
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
  /** What an RGBA photo's alpha does (AlphaUse). Default 'background'. */
  alpha?: AlphaUse;
  /** Non-fatal problems (a cache that cannot be written). Default console.warn. */
  warn?: (message: string) => void;
}

export interface ViewImage {
  width: number;
  height: number;
  /** Row-major RGB, H * W * 3 values in [0, 1]. */
  rgb: Float32Array;
  /** H * W bytes, 0 where the loss ignores the pixel, else 255 (or 1 + 254 alpha: processViewPixels); absent when none is masked and no alpha is kept. */
  mask?: Uint8Array;
}

const BLACK: Rgb = [0, 0, 0];

/**
 * Images loaded at once by loadViewImages (and the import check): sharp decodes on libuv's pool
 * (4 threads by default) while this thread composites and downscales the ones already decoded.
 */
export const IMAGES_IN_FLIGHT = 2 * Math.max(2, Math.min(8, os.availableParallelism()));

/**
 * The last undistortion map made, by its lens and size: a capture's views mostly share one camera
 * (a video always), and the map (a distortion per pixel: 120-165 ms at 1296 x 720 here) is the
 * same for each of them. One entry: 21 bytes a pixel (58 MB at 1920 x 1440).
 */
let lastMap: { key: string; map: UndistortionMap } | undefined;

function undistortionMapOf(view: DatasetView, width: number, height: number): UndistortionMap {
  const key = JSON.stringify([view.distortion, width, height]);
  if (lastMap?.key !== key) {
    const lens = lensOf(view.distortion!, view.imagePath, 'view');
    lastMap = { key, map: undistortionMap(lens, width, height, undistortedPinhole(lens, width, height)) };
  }
  return lastMap.map;
}

/**
 * Decoded pixels -> the view's final 8-bit pixels: RGB, or RGB + a 4th byte per pixel when any
 * pixel is masked or alpha is kept (`masking.alpha` 'coverage'):
 *   0            the loss ignores the pixel: the mask file's zeros (`mask`, the photo's size),
 *                alpha 0 with alpha 'mask', or outside the undistortion's valid field; a
 *                downscaled pixel counts only where every pixel it covers does;
 *   1 + 254 a    with alpha 'coverage': the pixel counts, its colour is premultiplied (composited
 *                over black) and a is its alpha, so the loss can composite it over any
 *                background (kernels/loss.wgsl, RANDOM_BACKGROUND); 255 (a = 1) for RGB photos;
 *   255          otherwise.
 * Pure; exported for tests.
 */
export function processViewPixels(image: Image, view: DatasetView, downscale: number, background: Rgb, masking: PixelMasking = {}): Image {
  const alphaUse = masking.alpha ?? 'background';
  const keepAlpha = alphaUse === 'coverage';
  const target = downscaledSize(image.width, image.height, downscale);
  let valid: Uint8Array | undefined = masking.mask ? Uint8Array.from(masking.mask, (m) => (m === 0 ? 0 : 1)) : undefined;
  if (alphaUse === 'mask' && image.channels === 4) {
    valid ??= new Uint8Array(image.width * image.height).fill(1);
    for (let p = 0; p < valid.length; p++) if (image.data[4 * p + 3] === 0) valid[p] = 0;
  }
  if (!view.distortion && !valid && !keepAlpha && target.width === image.width && target.height === image.height) {
    return { width: image.width, height: image.height, channels: 3, data: compositeToBytes(image, background) };
  }
  let rgb = compositeToRgb(image, keepAlpha ? BLACK : background);
  let alpha = keepAlpha ? alphaOf(image) : undefined;
  if (view.distortion) {
    const map = undistortionMapOf(view, image.width, image.height);
    rgb = applyUndistortion(map, rgb);
    if (alpha) alpha = applyUndistortion(map, alpha);
    if (valid) {
      // the mask is a picture of the photo too: through the same map, kept where every sample it weighs is
      const m = applyUndistortion(map, { width: image.width, height: image.height, channels: 1, data: Float32Array.from(valid) }).data;
      valid = Uint8Array.from(m, (v, i) => (map.valid[i] && v >= 1 - 1e-6 ? 1 : 0));
    } else if (map.invalidPixels > 0) valid = map.valid;
  }
  rgb = downscaleArea(rgb, downscale);
  const bytes = quantizeToBytes(rgb.data);
  const allValid = !valid || valid.every((v) => v === 1);
  if (allValid && !keepAlpha) return { width: rgb.width, height: rgb.height, channels: 3, data: bytes };
  const counted = allValid ? undefined : downscaleArea({ width: image.width, height: image.height, channels: 1, data: Float32Array.from(valid!) }, downscale).data;
  const coverage = alpha ? downscaleArea(alpha, downscale).data : undefined;
  const out = new Uint8Array(rgb.width * rgb.height * 4);
  for (let p = 0; p < rgb.width * rgb.height; p++) {
    out[4 * p] = bytes[3 * p];
    out[4 * p + 1] = bytes[3 * p + 1];
    out[4 * p + 2] = bytes[3 * p + 2];
    const kept = !counted || counted[p] >= 1 - 1e-6;
    out[4 * p + 3] = !kept ? 0 : coverage ? 1 + Math.round(254 * Math.min(1, Math.max(0, coverage[p]))) : 255;
  }
  return { width: rgb.width, height: rgb.height, channels: 4, data: out };
}

/** An image's alpha in [0, 1] as a one-channel float image (1 everywhere for RGB). */
function alphaOf(image: Image): FloatImage {
  const pixels = image.width * image.height;
  const data = new Float32Array(pixels).fill(1);
  if (image.channels === 4) for (let p = 0; p < pixels; p++) data[p] = image.data[4 * p + 3] / 255;
  return { width: image.width, height: image.height, channels: 1, data };
}

/**
 * What an RGBA photo's alpha does: 'background' composites it over the background (and nothing
 * more), 'mask' also leaves alpha 0 out of the loss, 'coverage' keeps it for the loss to
 * composite over a background of its own (random backgrounds).
 */
export type AlphaUse = 'background' | 'mask' | 'coverage';

/** What marks a view's pixels out of the loss besides the undistortion's invalid border. */
export interface PixelMasking {
  /** The mask file's first channel (photo size, one byte per pixel): 0 = ignore. */
  mask?: Uint8Array;
  alpha?: AlphaUse;
}

function toViewImage(image: Image): ViewImage {
  if (image.channels === 3) return { width: image.width, height: image.height, rgb: bytesToUnit(image.data) };
  const pixels = image.width * image.height;
  const rgb = new Uint8Array(pixels * 3);
  const mask = new Uint8Array(pixels);
  for (let p = 0; p < pixels; p++) {
    rgb.set(image.data.subarray(4 * p, 4 * p + 3), 3 * p);
    mask[p] = image.data[4 * p + 3];
  }
  return { width: image.width, height: image.height, rgb: bytesToUnit(rgb), mask };
}

export async function loadViewImage(view: DatasetView, options: ViewImageOptions = {}): Promise<ViewImage> {
  return toViewImage(await loadViewImageRgb8(view, options));
}

/** As loadViewImage, the final 8-bit pixels (what the cache holds; no conversion to floats): RGB, or RGB + mask (processViewPixels). */
export async function loadViewImageRgb8(view: DatasetView, options: ViewImageOptions = {}): Promise<Image> {
  const downscale = options.downscale ?? 1;
  if (!Number.isFinite(downscale) || downscale < 1) throw new ArgonautError('invalid_argument', `downscale must be a finite number >= 1, got ${downscale}`);
  // 'coverage' keeps premultiplied colour (over black) whatever the background: the trainer
  // composites per step (one place, so import's cache warm-up and training agree on the key)
  const background = options.alpha === 'coverage' ? BLACK : (options.background ?? BLACK);
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
  if (view.maskPath) key.mask = { absolutePath: path.resolve(view.maskPath), ...(await imageFileStat(view.maskPath)) };
  if (options.alpha && options.alpha !== 'background') key.alpha = options.alpha;
  const expected = `${view.camera.width}x${view.camera.height}`;
  if (cacheDir) {
    const hit = await readCachedImage(cacheDir, key);
    if (hit && `${hit.width}x${hit.height}` === expected) return hit;
  }
  const decoded = await (options.decoder ?? imageDecoder).decode(await readImageBytes(file), file);
  const target = downscaledSize(decoded.width, decoded.height, downscale);
  if (`${target.width}x${target.height}` !== expected) {
    throw badInput(
      file,
      `image is ${decoded.width}x${decoded.height}, which at downscale ${downscale} gives ${target.width}x${target.height}, but the view's camera is ${expected} (was the dataset loaded with another downscale?)`,
    );
  }
  const mask = view.maskPath ? await readMask(view.maskPath, decoded, file, options.decoder ?? imageDecoder) : undefined;
  const processed = processViewPixels(decoded, view, downscale, background, { mask, alpha: options.alpha });
  if (cacheDir) {
    try {
      await writeCachedImage(cacheDir, key, processed);
    } catch (error) {
      warn(`${file}: could not write the image cache in ${cacheDir}: ${(error as Error).message}`);
    }
  }
  return processed;
}

/** A mask file's first channel, checked to be the photo's size (masks.ts readViewMask). */
async function readMask(maskPath: string, photo: Image, photoPath: string, decoder: ImageDecoder): Promise<Uint8Array> {
  const image = await readViewMask(maskPath, photoPath, photo, async () => decoder.decode(await readImageBytes(maskPath), maskPath));
  const mask = new Uint8Array(image.width * image.height);
  for (let p = 0; p < mask.length; p++) mask[p] = image.data[p * image.channels];
  return mask;
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
