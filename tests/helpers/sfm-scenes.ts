/**
 * Small photo sets for the capture's structure-from-motion tests, made from the statue's real
 * photos (../shared/data/colmap_statue) so SIFT finds real texture, sized so llvmpipe extracts
 * them in seconds: a few views downscaled, copies of one view (no camera motion), and pure
 * rotations of one view (a panorama: a camera turning on the spot sees a homography K R K^-1 of
 * the scene, exactly), written with the EXIF focal length that makes verification calibrated.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { sharedDataset } from './shared-data.js';

export const statue = sharedDataset('colmap_statue');
export const maupertuis = sharedDataset('colmap_txt_maupertuis');

/** `names` of a shared data set's images, downscaled to `width` as JPEGs into `dir`. */
export async function downscaledPhotos(sourceDir: string, names: readonly string[], dir: string, width: number): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const name of names) await sharp(path.join(sourceDir, name)).resize({ width }).jpeg({ quality: 92 }).toFile(path.join(dir, name));
  return dir;
}

/** The same photo `count` times under different names: views with no camera motion at all. */
export async function identicalPhotos(source: string, dir: string, count: number, width: number): Promise<string> {
  await mkdir(dir, { recursive: true });
  const bytes = await sharp(source).resize({ width }).jpeg({ quality: 92 }).toBuffer();
  for (let k = 0; k < count; k++) await writeFile(path.join(dir, `view_${k}.jpg`), bytes);
  return dir;
}

/**
 * Views of a camera turning about its vertical axis by `yawsDeg`, each `width` x `height` with
 * focal length = width (EXIF FocalLengthIn35mmFilm 35), looking at `source` as seen by a camera of
 * focal `sourceFocal` at the source's centre: view pixel p samples the source at K_s R^T K^-1 p (bilinear).
 */
export async function rotatedViews(source: string, dir: string, yawsDeg: readonly number[], width: number, height: number, sourceWidth: number): Promise<string> {
  await mkdir(dir, { recursive: true });
  const { data, info } = await sharp(source).resize({ width: sourceWidth }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [sw, sh] = [info.width, info.height];
  const focal = width;
  const sourceFocal = width;
  for (const [k, yawDeg] of yawsDeg.entries()) {
    const yaw = (yawDeg * Math.PI) / 180;
    const [c, s] = [Math.cos(yaw), Math.sin(yaw)];
    const out = Buffer.alloc(width * height * 3, 128);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        // ray in the view's camera, turned into the source camera's frame (R^T of a yaw)
        const [rx, ry, rz] = [(x + 0.5 - width / 2) / focal, (y + 0.5 - height / 2) / focal, 1];
        const [ux, uy, uz] = [c * rx + s * rz, ry, -s * rx + c * rz];
        if (uz <= 0) continue;
        const sx = (sourceFocal * ux) / uz + sw / 2 - 0.5;
        const sy = (sourceFocal * uy) / uz + sh / 2 - 0.5;
        const [x0, y0] = [Math.floor(sx), Math.floor(sy)];
        if (x0 < 0 || y0 < 0 || x0 + 1 >= sw || y0 + 1 >= sh) continue;
        const [fx, fy] = [sx - x0, sy - y0];
        for (let ch = 0; ch < 3; ch++) {
          const at = (xx: number, yy: number) => data[(yy * sw + xx) * 3 + ch];
          const top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
          const bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
          out[(y * width + x) * 3 + ch] = Math.round(top * (1 - fy) + bottom * fy);
        }
      }
    }
    await sharp(out, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 95 })
      .withExif({ IFD2: { FocalLengthIn35mmFilm: '35' } })
      .toFile(path.join(dir, `turn_${k}.jpg`));
  }
  return dir;
}
