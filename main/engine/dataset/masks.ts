/**
 * Per-view masks: a `masks/` folder beside `images/` (COLMAP's convention, the dataset's root for
 * COLMAP and transforms.json) or a folder the user names. A view's mask is `<image name>.png`
 * (masks/IMG_1.jpg.png), else `<name without extension>.png` (masks/IMG_1.png), also tried on the
 * name's last path part (transforms.json names include their folder). Zero = the loss ignores the
 * pixel. A folder that has masks must have one for every view, of its photo's size: a missing or
 * wrong-sized mask would silently train on what the user meant to hide.
 */
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { probeImage } from '../formats/images.js';
import { isFile, isFolder, mapLimit, type SourceView } from './source-view.js';

/** The folder a dataset's masks are looked for in when none is named. */
export const MASKS_FOLDER = 'masks';

/** How many missing masks an error lists by name. */
const LISTED_MISSING = 5;

/** The file names a view's mask may have, in the order they are tried. */
export function maskCandidates(name: string): string[] {
  const stem = (n: string): string => n.slice(0, n.length - path.posix.extname(n).length);
  const base = path.posix.basename(name);
  return [...new Set([`${name}.png`, `${stem(name)}.png`, `${base}.png`, `${stem(base)}.png`])];
}

/**
 * Sets `maskPath` on every view from `folder` (explicit: must exist), else from `<root>/masks`
 * when that exists; views that already name a mask (transforms.json `mask_path`) keep it.
 * Checks each mask exists and has its photo's size (header only).
 */
export async function attachMasks(views: SourceView[], root: string, folder?: string): Promise<void> {
  let dir: string;
  if (folder !== undefined) {
    dir = path.resolve(folder);
    if (!(await isFolder(dir))) throw badInput(dir, 'mask folder not found');
  } else {
    dir = path.join(root, MASKS_FOLDER);
    if (!(await isFolder(dir))) {
      await checkMaskSizes(views.filter((v) => v.maskPath));
      return;
    }
  }
  const missing: string[] = [];
  await mapLimit(views, 16, async (view) => {
    if (view.maskPath && folder === undefined) return;
    for (const candidate of maskCandidates(view.name)) {
      const file = path.join(dir, candidate);
      if (await isFile(file)) {
        view.maskPath = file;
        return;
      }
    }
    missing.push(view.name);
  });
  if (missing.length > 0) {
    missing.sort();
    // every name tried (a nested name's flat forms too: masks/b.png for images/b.png)
    const listed = missing.slice(0, LISTED_MISSING).map((n) => `${n} (${maskCandidates(n).join(' or ')})`);
    const more = missing.length > LISTED_MISSING ? `, and ${missing.length - LISTED_MISSING} more` : '';
    throw badInput(dir, `the mask folder has no mask for ${missing.length} of ${views.length} images: ${listed.join(', ')}${more}`);
  }
  await checkMaskSizes(views);
}

async function checkMaskSizes(views: SourceView[]): Promise<void> {
  // header only; the photo's size is its camera's (undistortion keeps it)
  await mapLimit(views, 16, (view) => readViewMask(view.maskPath!, view.imagePath, view.camera, () => probeImage(view.maskPath!)));
}

/**
 * A view's mask as `read` gets it (its header at load, its pixels when training reads the image),
 * in one place for both: a file that cannot be read names the photo it masks too, and a mask of
 * another size than its photo is refused naming both.
 */
export async function readViewMask<T extends { width: number; height: number }>(maskPath: string, photoPath: string, photo: { width: number; height: number }, read: () => Promise<T>): Promise<T> {
  let mask: T;
  try {
    mask = await read();
  } catch (error) {
    if (error instanceof ArgonautError) throw new ArgonautError(error.code, `${error.message} (the mask of ${photoPath})`, error.details);
    throw error;
  }
  if (mask.width !== photo.width || mask.height !== photo.height) {
    throw badInput(maskPath, `mask is ${mask.width}x${mask.height} but its image ${photoPath} is ${photo.width}x${photo.height}`);
  }
  return mask;
}
