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

/** The rasterizer options a sweep tunes (RasterizerOptions extends this: declared here so the cache needs no rasterizer). */
export interface RasterTuning {
  /** Threads per workgroup of the per-splat kernels. */
  workgroupSize?: number;
  /** Intersections per batch in the backward (override BATCH_B; BATCH_CAS for the 'cas' reduction). */
  backwardBatch?: number;
  /**
   * How the subgroup backward sums over a tile's subgroups: 'partials' (one slot per subgroup,
   * summed per batch) or 'cas' (compare-exchange adds into one accumulator). Subgroup variant only.
   */
  backwardReduce?: 'partials' | 'cas';
  /**
   * Pixels per thread in the subgroup 'partials' backward (override PPT): 2 halves the subgroup
   * reductions per tile (each thread adds two pixels' gradients first) on half the threads.
   */
  backwardPixels?: 1 | 2;
}

/**
 * Intersection records each gather_grads thread sums (override ITEMS; a workgroup's chunk is
 * WG x ITEMS records). Not swept: 8 keeps a thread's loads on whole 128-byte lines of each
 * gradient array and the chunks' carries under 0.1 B an intersection. `ARGONAUT_GATHER_ITEMS`
 * overrides it for A/B runs (bench raster on the H200: fewer records a thread hold fewer lines
 * in flight per warp, more give fewer scans).
 */
export const GATHER_ITEMS = 8;

/** GATHER_ITEMS, or ARGONAUT_GATHER_ITEMS when set (an integer 1..64). */
export function gatherItems(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ARGONAUT_GATHER_ITEMS;
  if (raw === undefined || raw === '') return GATHER_ITEMS;
  const items = Number(raw);
  if (!Number.isInteger(items) || items < 1 || items > 64) throw new Error(`ARGONAUT_GATHER_ITEMS: expected an integer from 1 to 64, got '${raw}'`);
  return items;
}

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
