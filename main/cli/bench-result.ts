import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BUILD_COMMIT } from '../../shared/version.js';
import { UsageError } from './args.js';

// Every command that reports a measured result (bench raster/train/mesh, train, mesh) stamps it
// the same way; kept apart from the commands so none of them imports another.

/** Common fields of every benchmark result (bench/results/*.json): where and from which commit it was measured. */
export function benchStamp(gpu: { info: { backend: string; adapter: { name: string; description: string } } }) {
  return { backend: gpu.info.backend, adapter: gpu.info.adapter.name, driver: gpu.info.adapter.description, commit: BUILD_COMMIT, date: new Date().toISOString() };
}

/** Writes the JSON result to `file` when `--out` gave one. */
export async function writeResult(file: string | undefined, result: object): Promise<void> {
  if (file) await writeFile(path.resolve(file), `${JSON.stringify(result, null, 2)}\n`);
}

/** The image size of the fixed-load benches (`bench loss`, `bench appearance`): the 1920x1440 phone capture of issue 14 unless told. */
export const CAPTURE_BENCH_SIZE = { width: 1920, height: 1440 } as const;

/** --width x --height of a fixed-load bench, refused (usage) below 1 pixel. */
export function benchImageSize(bench: string, options: Readonly<Record<string, unknown>>): { width: number; height: number } {
  const width = (options.width as number | undefined) ?? CAPTURE_BENCH_SIZE.width;
  const height = (options.height as number | undefined) ?? CAPTURE_BENCH_SIZE.height;
  if (width < 1 || height < 1) throw new UsageError(`bench ${bench}: --width and --height must be at least 1 (got ${width}x${height})`);
  return { width, height };
}
