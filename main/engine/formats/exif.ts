/**
 * The one EXIF field the pipeline needs: IFD0 Orientation (tag 0x0112), read from a JPEG APP1
 * payload ("Exif\0\0" + TIFF). Bounds-checked throughout. Broken or absent EXIF means "no
 * orientation" (null), not a bad image: the pixels are still fine, and cameras often write junk
 * here. Values outside 1..8 are treated the same way.
 */
export function readExifOrientation(app1: Uint8Array): number | null {
  // "Exif" 00 00
  if (app1.length < 14 || app1[0] !== 0x45 || app1[1] !== 0x78 || app1[2] !== 0x69 || app1[3] !== 0x66 || app1[4] !== 0 || app1[5] !== 0) {
    return null;
  }
  const tiff = app1.subarray(6);
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const order = (tiff[0] << 8) | tiff[1];
  if (order !== 0x4949 && order !== 0x4d4d) return null; // "II" little endian, "MM" big endian
  const little = order === 0x4949;
  if (view.getUint16(2, little) !== 42) return null;
  const ifd0 = view.getUint32(4, little);
  if (ifd0 + 2 > tiff.length) return null;
  const count = view.getUint16(ifd0, little);
  for (let i = 0; i < count; i++) {
    const entry = ifd0 + 2 + i * 12;
    if (entry + 12 > tiff.length) return null;
    if (view.getUint16(entry, little) !== 0x0112) continue;
    const type = view.getUint16(entry + 2, little);
    if (type !== 3) return null; // SHORT
    const value = view.getUint16(entry + 8, little);
    return value >= 1 && value <= 8 ? value : null;
  }
  return null;
}
