import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from this file's location (tests/helpers/). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** ../shared/data beside the repository: real datasets made by others, never committed here. */
export const sharedDataDir = path.resolve(repoRoot, '../shared/data');

/**
 * The path of a shared dataset, and whether it is present. When absent (a fresh clone outside
 * the team) tests skip with `it.runIf(available)` and this prints why, once per dataset.
 */
export function sharedDataset(name: string): { dir: string; available: boolean } {
  const dir = path.join(sharedDataDir, name);
  const available = existsSync(dir);
  if (!available) console.warn(`skipping tests that need ${dir}: the shared test data is not present (see ../shared/data/README.md)`);
  return { dir, available };
}
