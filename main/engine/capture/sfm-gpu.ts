/**
 * `capture --features gpu`: our SIFT and descriptor matching (main/engine/sfm) in place of
 * COLMAP's feature_extractor and matcher, written into COLMAP's database.db
 * (sfm/colmap-database.ts) so that its `mapper` runs on them unchanged.
 *
 * Geometric verification is still COLMAP's until ours lands (issue 15 item 3): our raw matches go
 * into the `matches` table and COLMAP's matcher of the capture kind (the same pairs) finds them
 * there and only verifies them (it skips matching a pair whose matches exist; see docs/sfm.md),
 * filling two_view_geometries.
 *
 * Cameras as COLMAP's feature_extractor makes them: one per video clip, one per photo; focal from
 * a photo's EXIF (exif-focal.ts), else 1.2 x the long side (sfm/colmap-database.ts defaultCameraParams).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { isFile } from '../dataset/source-view.js';
import type { GpuContext } from '../gpu/context.js';
import { defaultCameraParams, readColmapDatabase, writeColmapDatabase, type ColmapCameraModel, type DatabaseCamera, type DatabaseImage, COLMAP_CAMERA_MODELS } from '../sfm/colmap-database.js';
import { SiftExtractor } from '../sfm/features.js';
import { loadGreyImage, loadKeypointMask, type GreyImage } from '../sfm/grey-image.js';
import type { KeypointMask } from '../sfm/keypoint-selection.js';
import { CAPTURE_SIFT } from '../sfm/sift-options.js';
import { readExifFocal } from './exif-focal.js';
import { matchImagePairs } from '../sfm/match.js';
import { exhaustivePairs, sequentialPairs, type ImagePair } from '../sfm/match-pairs.js';

export interface GpuStageOptions {
  gpu: GpuContext;
  cameraModel: string;
  maxFeatures: number;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message: string) => void;
}

export interface GpuGroup {
  name: string;
  kind: 'video' | 'photos';
  images: string[];
}

function throwIfCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new ArgonautError('cancelled', 'cancelled');
}

export function colmapCameraModel(name: string): ColmapCameraModel {
  if (!(name in COLMAP_CAMERA_MODELS)) throw new ArgonautError('invalid_argument', `camera model ${name}: --features gpu writes ${Object.keys(COLMAP_CAMERA_MODELS).join(', ')}`);
  return name as ColmapCameraModel;
}

/**
 * Extracts every image's features on the GPU and writes a database with cameras, images,
 * keypoints and descriptors (no matches). Returns features per image name.
 *
 * With `maskDir`, `<maskDir>/<image name>.png` (where it exists, as COLMAP's ImageReader.mask_path
 * looks) restricts the keypoints to its non-zero pixels, before the budget. A photo's camera
 * takes its EXIF focal where it has one, with prior_focal_length = 1 (capture/exif-focal.ts), as
 * COLMAP's extractor does.
 */
export async function extractIntoDatabase(database: string, imagesDir: string, groups: readonly GpuGroup[], options: GpuStageOptions & { maskDir?: string }): Promise<{ features: Record<string, number>; seconds: { extract: number; write: number } }> {
  const model = colmapCameraModel(options.cameraModel);
  const total = groups.reduce((s, g) => s + g.images.length, 0);
  const cameras: DatabaseCamera[] = [];
  const images: DatabaseImage[] = [];
  const features: Record<string, number> = {};
  const started = performance.now();
  const extractor = await SiftExtractor.create(options.gpu, { ...CAPTURE_SIFT, maxFeatures: options.maxFeatures });
  try {
    for (const group of groups) {
      let groupCamera = 0;
      for (const name of group.images) {
        throwIfCancelled(options.signal);
        const file = path.join(imagesDir, name);
        const grey = await loadGreyImage(file);
        const f = await extractor.extract(grey, options.maskDir ? await maskOf(path.join(options.maskDir, `${name}.png`), grey) : undefined);
        // a clip shares one camera (single_camera, as the COLMAP path runs it); a photo has its own
        if (group.kind === 'photos') {
          const exif = await readExifFocal(file, f.width, f.height);
          cameras.push({ model, width: f.width, height: f.height, ...(exif ? { params: defaultCameraParams(model, f.width, f.height, exif.focal), priorFocalLength: true } : {}) });
          groupCamera = cameras.length;
        } else if (groupCamera === 0 || cameras[groupCamera - 1].width !== f.width || cameras[groupCamera - 1].height !== f.height) {
          cameras.push({ model, width: f.width, height: f.height });
          groupCamera = cameras.length;
        }
        images.push({ name, cameraId: groupCamera, keypoints: f.keypoints, descriptors: f.descriptors });
        features[name] = f.keypoints.length / 4;
        options.onProgress?.(images.length / total, `extract ${images.length}/${total} images (${name}: ${features[name]} features)`);
      }
    }
  } finally {
    extractor.destroy();
  }
  const extracted = performance.now();
  await writeColmapDatabase(database, { cameras, images, matches: [] });
  return { features, seconds: { extract: (extracted - started) / 1000, write: (performance.now() - extracted) / 1000 } };
}

/** An image's mask where its file exists (COLMAP skips a missing one too), refused naming the file unless it has the image's size. */
async function maskOf(file: string, image: GreyImage): Promise<KeypointMask | undefined> {
  if (!(await isFile(file))) return undefined;
  const mask = await loadKeypointMask(file);
  if (mask.width !== image.width || mask.height !== image.height) throw badInput(file, `mask is ${mask.width}x${mask.height} but its image is ${image.width}x${image.height}`);
  return mask;
}

/** The pairs to match over the whole set in capture order (the COLMAP path's matcher over the same database). */
export function pairsFor(matcher: 'sequential' | 'exhaustive', images: number): ImagePair[] {
  return matcher === 'sequential' ? sequentialPairs(images) : exhaustivePairs(images);
}

/**
 * Matches the database's images over `pairs` on the GPU and rewrites the database with the raw
 * matches; writes the pairs as COLMAP's pair list (`pairs.txt`, one "name1 name2" a line), a record
 * (verification does not read it: COLMAP 3.8 splits its lines at the first space).
 */
export async function matchIntoDatabase(database: string, pairListFile: string, matcher: 'sequential' | 'exhaustive', options: GpuStageOptions): Promise<{ pairs: number; matches: number; seconds: number }> {
  const started = performance.now();
  const content = await readColmapDatabase(database);
  const pairs = pairsFor(matcher, content.images.length);
  const raw = await matchImagePairs(options.gpu, content.images, pairs, {}, (done, total) => {
    throwIfCancelled(options.signal);
    options.onProgress?.(done / total, `match ${done}/${total} pairs`);
  });
  const matches = pairs.map(([i, j], k) => ({ image1: i + 1, image2: j + 1, matches: raw[k] }));
  await writeColmapDatabase(database, { cameras: content.cameras, images: content.images, matches });
  await writeFile(pairListFile, pairs.map(([i, j]) => `${content.images[i].name} ${content.images[j].name}\n`).join(''));
  return { pairs: pairs.length, matches: raw.reduce((s, m) => s + m.length / 2, 0), seconds: (performance.now() - started) / 1000 };
}
