/**
 * Per-adapter kernel tuning chosen by `bench raster --sweep` and cached on disk (like Taichi's
 * offline cache): later runs on the same adapter and driver start with the best configuration.
 * The cache is advisory: unreadable or stale entries are ignored.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { GpuInfo } from '../../../shared/contract/gpu.js';
import { writeFileAtomic } from '../formats/atomic-file.js';
import type { RasterizerOptions } from './rasterizer.js';

export type RasterTuning = Pick<RasterizerOptions, 'workgroupSize' | 'backwardBatch' | 'backwardReduce' | 'backwardPixels'>;

export function tuningFile(): string {
  const base = process.env.ARGONAUT_CACHE_DIR ?? process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache');
  return path.join(process.env.ARGONAUT_CACHE_DIR ? base : path.join(base, 'argonaut'), 'tuning.json');
}

export function adapterKey(info: GpuInfo): string {
  return `${info.adapter.name} | ${info.adapter.description} | ${info.backend} | ${info.variant}`;
}

export async function loadTuning(info: GpuInfo, file = tuningFile()): Promise<RasterTuning | undefined> {
  try {
    const all = JSON.parse(await readFile(file, 'utf8')) as Record<string, RasterTuning>;
    const t = all[adapterKey(info)];
    if (!t || typeof t !== 'object') return undefined;
    const valid =
      (t.workgroupSize === undefined || [64, 128, 256].includes(t.workgroupSize)) &&
      (t.backwardBatch === undefined || (Number.isInteger(t.backwardBatch) && t.backwardBatch >= 8 && t.backwardBatch <= 256)) &&
      (t.backwardReduce === undefined || t.backwardReduce === 'partials' || t.backwardReduce === 'cas') &&
      (t.backwardPixels === undefined || t.backwardPixels === 1 || t.backwardPixels === 2);
    return valid ? t : undefined;
  } catch {
    return undefined;
  }
}

export async function saveTuning(info: GpuInfo, tuning: RasterTuning, file = tuningFile()): Promise<void> {
  let all: Record<string, RasterTuning> = {};
  try {
    all = JSON.parse(await readFile(file, 'utf8')) as Record<string, RasterTuning>;
  } catch {
    // first entry
  }
  all[adapterKey(info)] = tuning;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(all, null, 2)}\n`);
}
