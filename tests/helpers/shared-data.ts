import { existsSync } from 'node:fs';
import path from 'node:path';
import { sharedData } from './build.js';

/**
 * The path of a dataset in ../shared/data (real data made by others, never committed here) and
 * whether it is present. When absent (a fresh clone outside the team) tests skip with
 * `it.runIf(available)` and this prints why, once per dataset and test file.
 */
export function sharedDataset(name: string): { dir: string; available: boolean } {
  const dir = path.join(sharedData, name);
  const available = existsSync(dir);
  if (!available) console.warn(`skipping tests that need ${dir}: the shared test data is not present (see ../shared/data/README.md)`);
  return { dir, available };
}
