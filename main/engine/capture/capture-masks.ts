/**
 * Masks for a capture from photos (`capture <photos> --masks DIR`): the user's mask per photo
 * (COLMAP's convention, found as dataset/masks.ts finds a dataset's: `<photo name>.png`, else
 * `<name without extension>.png`; zero = ignore), of the photo's size as it is seen (EXIF
 * orientation applied, as the loaders see photos), brought to the size the photo was normalized to
 * (photos.ts) and written to the captured dataset's masks/ folder, where COLMAP's feature
 * extraction (`--ImageReader.mask_path`) and training both find it:
 *
 *   <dataset>/masks/<input>/<photo name>.png   0 (ignored) or 255 (kept) per pixel
 *
 * A downscaled mask keeps a pixel only where every photo pixel it covers was kept, the rule
 * training's own --downscale applies to masks (view-image.ts): what the user hid stays hidden.
 * Video has no masks: one per extracted frame is not something a user can make before frame
 * selection has chosen the frames, so `--masks` with a video input is refused by name.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { maskCandidates, MASKS_FOLDER } from '../dataset/masks.js';
import { isFile, isFolder } from '../dataset/source-view.js';
import { writeFileAtomic } from '../formats/atomic-file.js';
import { downscaleArea } from '../formats/image-ops.js';
import { decodeImage, encodeImage, inspectImageBytes } from '../formats/images.js';

/** How many missing masks an error lists by name. */
const LISTED_MISSING = 5;

/** Refuses masks for what cannot have them, before any long step: a video input (named), several inputs, a missing folder. */
export async function checkCaptureMasks(masksDir: string, inputs: readonly { path: string; kind: 'video' | 'photos' }[]): Promise<void> {
  const video = inputs.find((i) => i.kind === 'video');
  if (video) {
    throw badInput(video.path, 'masks are not supported for video inputs (frame selection picks the frames, so there is no mask per frame to give); capture the clip without --masks, or give a folder of photos with its masks');
  }
  if (inputs.length > 1) {
    throw badInput(masksDir, `--masks takes one photo folder (got ${inputs.length} inputs: ${inputs.map((i) => i.path).join(', ')}); photo names of several folders could collide in one mask folder`);
  }
  if (!(await isFolder(masksDir))) throw badInput(masksDir, 'mask folder not found');
}

/** The dataset's mask folder for an input's photos: `<dataset>/masks/<input>`. */
export function capturedMasksDir(datasetDir: string, inputName: string): string {
  return path.join(datasetDir, MASKS_FOLDER, inputName);
}

/**
 * Writes the mask of each of `photos` (names in `photoFolder`, normalized by photos.ts to `sizes`
 * with the long side at most `maxSize`) from `masksDir` into `destDir` (emptied of anything else).
 * Every photo needs its mask, of its size.
 */
export async function importCaptureMasks(masksDir: string, photoFolder: string, photos: readonly string[], sizes: Readonly<Record<string, { width: number; height: number }>>, maxSize: number, destDir: string, signal?: AbortSignal): Promise<void> {
  const found = new Map<string, string>();
  const missing: string[] = [];
  for (const name of photos) {
    let file: string | undefined;
    for (const candidate of maskCandidates(name)) {
      if (await isFile(path.join(masksDir, candidate))) {
        file = path.join(masksDir, candidate);
        break;
      }
    }
    if (file) found.set(name, file);
    else missing.push(name);
  }
  if (missing.length > 0) {
    const listed = missing.slice(0, LISTED_MISSING).map((n) => `${n} (${maskCandidates(n).join(' or ')})`);
    const more = missing.length > LISTED_MISSING ? `, and ${missing.length - LISTED_MISSING} more` : '';
    throw badInput(masksDir, `the mask folder has no mask for ${missing.length} of ${photos.length} photos: ${listed.join(', ')}${more}`);
  }
  await mkdir(destDir, { recursive: true });
  for (const name of photos) {
    if (signal?.aborted) throw new ArgonautError('cancelled', 'cancelled');
    const size = sizes[name];
    if (!size) throw new Error(`capture masks: no normalized size for ${name}`);
    const mask = await resizedMask(found.get(name)!, path.join(photoFolder, name), size, maxSize);
    // grey as RGB (images.ts encodes 3 or 4 channels): both readers take the first channel
    const rgb = new Uint8Array(mask.length * 3);
    for (let p = 0; p < mask.length; p++) rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = mask[p];
    await writeFileAtomic(path.join(destDir, `${name}.png`), await encodeImage('png', { width: size.width, height: size.height, channels: 3, data: rgb }));
  }
  const keep = new Set(photos.map((n) => `${n}.png`));
  for (const entry of await readdir(destDir)) if (!keep.has(entry)) await rm(path.join(destDir, entry), { recursive: true, force: true });
}

/** One mask at the photo's normalized size, 0 or 255 per pixel; refused (naming the file) unless it has the photo's size. */
async function resizedMask(maskFile: string, photoFile: string, size: { width: number; height: number }, maxSize: number): Promise<Uint8Array> {
  const photo = await inspectImageBytes(await readBytes(photoFile), photoFile);
  let image;
  try {
    image = await decodeImage(await readBytes(maskFile), maskFile);
  } catch (error) {
    if (error instanceof ArgonautError) throw new ArgonautError(error.code, `${error.message} (the mask of ${photoFile})`, error.details);
    throw error;
  }
  if (image.width !== photo.width || image.height !== photo.height) {
    throw badInput(maskFile, `mask is ${image.width}x${image.height} but its photo ${photoFile} is ${photo.width}x${photo.height}${photo.orientation > 1 ? ' (as displayed: EXIF orientation applied)' : ''}`);
  }
  const pixels = image.width * image.height;
  const kept = new Float32Array(pixels);
  for (let p = 0; p < pixels; p++) kept[p] = image.data[p * image.channels] === 0 ? 0 : 1;
  if (size.width === image.width && size.height === image.height) return Uint8Array.from(kept, (k) => k * 255);
  // photos.ts's factor exactly (normalizePhoto), so both land on the same size
  const factor = Math.max(image.width, image.height) / maxSize;
  const small = downscaleArea({ width: image.width, height: image.height, channels: 1, data: kept }, factor);
  if (small.width !== size.width || small.height !== size.height) {
    throw new Error(`capture masks: ${maskFile} resized to ${small.width}x${small.height}, its photo to ${size.width}x${size.height}`);
  }
  return Uint8Array.from(small.data, (v) => (v >= 1 - 1e-6 ? 255 : 0));
}

async function readBytes(file: string): Promise<Uint8Array> {
  const buffer = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw badInput(file, `cannot read the file (${error.code ?? error.message})`);
  });
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
