/**
 * The training images' own alpha for free-space carving (kernels/tsdf.wgsl's view_alpha): where a
 * photo is transparent, the view saw background whatever the trained splats render there, so a
 * floater the model drew over the background still collects free-space votes from that view.
 */
import type { Dataset, DatasetView } from '../dataset/types.js';
import { loadViewImages } from '../dataset/view-image.js';

/**
 * A view's alpha in [0, 1] from its loaded pixels' 4th byte (view-image.ts with alpha
 * 'coverage': 1 + 254 a where the pixel counts, 0 where a mask file says to ignore it, which is
 * not background: there the alpha is 1, no vote). Undefined when nothing is transparent (an RGB
 * photo: 255 everywhere), so the view uploads nothing.
 */
export function alphaFromMask(mask: Uint8Array | undefined): Float32Array | undefined {
  if (!mask) return undefined;
  let transparent = false;
  const alpha = new Float32Array(mask.length);
  for (let p = 0; p < mask.length; p++) {
    alpha[p] = mask[p] === 0 ? 1 : (mask[p] - 1) / 254;
    if (alpha[p] < 1) transparent = true;
  }
  return transparent ? alpha : undefined;
}

/**
 * Per view, its image's alpha (alphaFromMask), at the views' camera size (`downscale` as the
 * dataset was loaded). Meshing needs only the cameras, so images that cannot be read (a dataset
 * kept without its photos) are not an error: `warn` says so and no view has alpha.
 */
export async function loadImageAlpha(dataset: Dataset, views: readonly DatasetView[], downscale = 1, warn: (message: string) => void = console.warn): Promise<(Float32Array | undefined)[]> {
  try {
    const images = await loadViewImages(dataset, { views, downscale, alpha: 'coverage', warn });
    return images.map((image) => alphaFromMask(image.mask));
  } catch (error) {
    warn(`${dataset.root}: the training images could not be read for carving (${(error as Error).message}); carving from the rendered views only`);
    return views.map(() => undefined);
  }
}
