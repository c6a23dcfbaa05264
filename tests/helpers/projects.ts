/** Small projects for CLI, crash and service tests: a tiny COLMAP dataset trains in seconds on llvmpipe. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ProjectManifest } from '../../shared/project/manifest.js';
import { makeColmapDataset, type SyntheticColmap } from './datasets.js';

/** Six 32x24 views and five SfM points (five splats): steps take milliseconds. */
export function tinyDataset(options: { count?: number; seed?: number } = {}): Promise<SyntheticColmap> {
  return makeColmapDataset({ width: 32, height: 24, count: options.count ?? 6, seed: options.seed ?? 3 });
}

/** sha256 of every file under `dir` (relative path -> hash), for byte-for-byte comparisons. */
export function hashTree(dir: string, skip: (name: string) => boolean = (name) => name === '.argonaut-cache'): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      if (skip(name)) continue;
      const full = path.join(d, name);
      const s = statSync(full);
      if (s.isDirectory()) walk(full);
      else out[path.relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

export function hashFile(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** A complete current-version manifest (statue-like), for schema and file tests. */
export function validManifest(overrides: Partial<ProjectManifest> = {}): ProjectManifest {
  return {
    format: 'argonaut-project',
    version: 3,
    id: 'p1',
    name: 'statue',
    createdAt: '2026-01-01T00:00:00.000Z',
    modifiedAt: '2026-01-01T00:00:00.000Z',
    app: '0.1.0',
    dataDir: 'statue.argo.data',
    sources: [{ kind: 'dataset', path: '../data/statue', importedAt: '2026-01-01T00:00:00.000Z' }],
    dataset: { kind: 'folder', path: '../data/statue', copied: false, format: 'colmap', views: 23, train: 20, test: 3, width: 389, height: 259, points: 1443 },
    params: { 'train.iterations': 7000, 'train.downscale': 4 },
    runs: [],
    exports: [],
    edits: { history: [] },
    cameraPaths: [],
    partitions: [],
    ...overrides,
  };
}
