/**
 * Every splat file format the product reads and writes, by name: the one place that maps a
 * format (or a file's extension) to its reader and writer, so export, import, the CLI and the
 * viewer agree. Formats: the 3DGS PLY, antimatter15's `.splat`, Niantic's SPZ (written as
 * version 4), PlayCanvas' SOG bundle and glTF binary with KHR_gaussian_splatting
 * (docs/formats.md compares them).
 */
import path from 'node:path';
import type { ExportFormat } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { parseGlb, writeGlbFile } from './gltf-splats.js';
import { readInputFile } from './input-file.js';
import { parsePly, writePly } from './ply.js';
import { parseSog, writeSogFile } from './sog.js';
import { parseSplat, writeSplatFile } from './splat.js';
import { parseSpz, writeSpzFile } from './spz.js';

/** File extensions of the splat formats, lower case with the dot. */
export const SPLAT_FILE_EXTENSIONS: Readonly<Record<ExportFormat, string>> = { ply: '.ply', splat: '.splat', spz: '.spz', sog: '.sog', glb: '.glb' };

/** The format a file name says, or undefined. */
export function splatFormatOf(file: string): ExportFormat | undefined {
  const extension = path.extname(file).toLowerCase();
  return (Object.keys(SPLAT_FILE_EXTENSIONS) as ExportFormat[]).find((f) => SPLAT_FILE_EXTENSIONS[f] === extension);
}

export interface ReadSplats {
  splats: SplatSet;
  format: ExportFormat;
  /** What the file says about antialiased training, where the format has a place for it. */
  antialiased?: boolean;
}

/** Parses splat bytes of a known format; every malformed file is a bad_input naming `file`. */
export async function parseSplatsAs(format: ExportFormat, bytes: Uint8Array, file: string): Promise<ReadSplats> {
  if (format === 'ply') return { splats: parsePly(bytes, file), format };
  if (format === 'splat') return { splats: parseSplat(bytes, file), format };
  const { antialiased, ...splats } = format === 'spz' ? parseSpz(bytes, file) : format === 'sog' ? await parseSog(bytes, file) : parseGlb(bytes, file);
  return { splats, format, antialiased };
}

/** Reads a splat file by its extension (.ply, .splat, .spz, .sog, .glb). */
export async function readSplatsFile(file: string): Promise<ReadSplats> {
  const format = splatFormatOf(file);
  if (!format) throw badInput(file, `not a splat file this reads (by its extension: ${Object.values(SPLAT_FILE_EXTENSIONS).join(', ')})`);
  return parseSplatsAs(format, await readInputFile(file), file);
}

export interface WrittenSplats {
  /** SPZ: position coordinates clamped to its 24-bit range. */
  clamped?: number;
}

/** Writes splats in a format, atomically. */
export async function writeSplatsAs(format: ExportFormat, file: string, splats: SplatSet, options: { antialiased?: boolean } = {}): Promise<WrittenSplats> {
  if (format === 'ply') await writePly(file, splats);
  else if (format === 'splat') await writeSplatFile(file, splats);
  else if (format === 'glb') await writeGlbFile(file, splats, options);
  else if (format === 'sog') await writeSogFile(file, splats, options);
  else return { clamped: (await writeSpzFile(file, splats, options)).clamped };
  return {};
}
