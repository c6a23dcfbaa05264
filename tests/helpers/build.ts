import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedData = path.resolve(repoRoot, '../shared/data');

/** The built bundles (npm test builds them first); tests that spawn processes need them. */
export function builtFile(rel: string): string {
  const file = path.join(repoRoot, 'out', rel);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` (npm test does it) before these tests`);
  return file;
}
