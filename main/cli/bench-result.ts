import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BUILD_COMMIT } from '../../shared/version.js';

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
