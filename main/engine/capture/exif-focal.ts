/**
 * A photo's focal length in pixels from its EXIF, by COLMAP 3.8's rule (Bitmap::ExifFocalLength,
 * src/util/bitmap.cc), so that `capture --features gpu` gives the mapper the cameras COLMAP's own
 * feature_extractor would:
 *
 * 1. FocalLengthIn35mmFilm > 0: f = f35 / 35 x the long side (a 35 mm frame is 36 mm wide: COLMAP
 *    divides by 35, and so do we, to get its cameras);
 * 2. else FocalLength (mm) over the sensor width, f = f_mm / sensor_width x the long side, the
 *    sensor width from the EXIF focal plane: PixelXDimension / FocalPlaneXResolution, in
 *    FocalPlaneResolutionUnit (inches or cm; other units are not used).
 *
 * Not ported: COLMAP's camera database (src/base/camera_database.cc: ~3,500 sensor widths by
 * make and model), which it consults before the focal plane. A photo with FocalLength, a known
 * camera and no focal-plane tags gets COLMAP's focal there and the default here.
 *
 * Without any of these: null, and the caller uses COLMAP's default (1.2 x the long side, with no
 * prior). The EXIF comes from sharp's metadata (the raw block) read by exif-reader.
 */
import exifReader from 'exif-reader';
import { readFile } from 'node:fs/promises';
import { loadSharp } from '../formats/images.js';

/** EXIF FocalPlaneResolutionUnit values COLMAP uses, as millimetres per unit. */
const FOCAL_PLANE_UNIT_MM: Readonly<Record<number, number>> = { 2: 25.4, 3: 10 };

/** The EXIF fields the rule reads (exif-reader's names, in its Photo directory). */
export interface FocalExif {
  FocalLengthIn35mmFilm?: number;
  FocalLength?: number;
  PixelXDimension?: number;
  FocalPlaneXResolution?: number;
  FocalPlaneResolutionUnit?: number;
}

export interface ExifFocal {
  /** Pixels, for an image whose long side is the one given. */
  focal: number;
  from: 'FocalLengthIn35mmFilm' | 'FocalLength and focal plane';
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** COLMAP's rule on parsed EXIF, for an image of `width` x `height` as stored. */
export function focalFromExif(exif: FocalExif, width: number, height: number): ExifFocal | null {
  const longSide = Math.max(width, height);
  if (positive(exif.FocalLengthIn35mmFilm)) return { focal: (exif.FocalLengthIn35mmFilm / 35) * longSide, from: 'FocalLengthIn35mmFilm' };
  const unit = FOCAL_PLANE_UNIT_MM[exif.FocalPlaneResolutionUnit ?? 0];
  if (positive(exif.FocalLength) && positive(exif.PixelXDimension) && positive(exif.FocalPlaneXResolution) && unit) {
    // PixelXDimension, not the stored width: the photo may have been resized with its EXIF kept
    const sensorWidthMm = (exif.PixelXDimension / exif.FocalPlaneXResolution) * unit;
    return { focal: (exif.FocalLength / sensorWidthMm) * longSide, from: 'FocalLength and focal plane' };
  }
  return null;
}

/**
 * The focal of a photo file from its EXIF, or null where it has none that the rule uses. An EXIF
 * block that does not parse counts as none (COLMAP's FreeImage skips it the same way): the photo
 * itself decoded, so it is no reason to fail the capture.
 */
export async function readExifFocal(file: string, width: number, height: number): Promise<ExifFocal | null> {
  return (await readExifCamera(file, width, height)).focal;
}

/** The EXIF facts that tell photos' cameras apart: the focal (as above) and the camera's make and model (IFD0), each null where absent. */
export interface ExifCamera {
  focal: ExifFocal | null;
  make: string | null;
  model: string | null;
}

export async function readExifCamera(file: string, width: number, height: number): Promise<ExifCamera> {
  const none: ExifCamera = { focal: null, make: null, model: null };
  const sharp = await loadSharp();
  const { exif } = await sharp(await readFile(file)).metadata();
  if (!exif) return none;
  let parsed: ReturnType<typeof exifReader>;
  try {
    parsed = exifReader(exif);
  } catch {
    return none;
  }
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  return { focal: focalFromExif((parsed.Photo ?? {}) as FocalExif, width, height), make: text(parsed.Image?.Make), model: text(parsed.Image?.Model) };
}
