import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { loadViewImageRgb8 } from '../../../../main/engine/dataset/view-image.js';
import { ViewImagePool } from '../../../../main/engine/dataset/view-image-pool.js';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { repoRoot } from '../../../helpers/build.js';
import { cleanedTempDirs, makeColmapDataset } from '../../../helpers/datasets.js';

const temp = cleanedTempDirs(afterAll);
let workerScript: URL;
let crashingWorker: URL;
let bundleDir: string;

beforeAll(async () => {
  // the worker as scripts/build.mjs bundles it, from this checkout's source, inside the checkout
  // (its packages, sharp among them, resolve from node_modules as the real bundle's do)
  mkdirSync(path.join(repoRoot, 'out'), { recursive: true });
  bundleDir = mkdtempSync(path.join(repoRoot, 'out', 'test-view-image-pool-'));
  const outfile = path.join(bundleDir, 'view-image-worker.mjs');
  await build({ entryPoints: [path.join(repoRoot, 'main/engine/dataset/view-image-worker.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  workerScript = pathToFileURL(outfile);
  const crashing = path.join(bundleDir, 'crashing-worker.mjs');
  writeFileSync(crashing, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => { throw new Error('worker fell over'); });\n");
  crashingWorker = pathToFileURL(crashing);
});
afterAll(async () => rm(bundleDir, { recursive: true, force: true }));

/** A distorted capture (SIMPLE_RADIAL: undistorted, the invalid border masked) of three photos. */
async function distortedViews() {
  const d = await makeColmapDataset({ model: 'SIMPLE_RADIAL', width: 40, height: 30, params: [30, 20, 15, 0.2], count: 3 });
  const dataset = await loadDataset(d.root);
  return { root: d.root, views: dataset.views };
}

describe('view images on worker threads', () => {
  it("gives loadViewImageRgb8's bytes on this thread, for every view, two threads at once", async () => {
    const { views } = await distortedViews();
    expect(views[0].distortion?.model).toBe('SIMPLE_RADIAL');
    const pool = new ViewImagePool(workerScript, 2);
    try {
      const pooled = await Promise.all(views.map((v) => pool.load(v, { cacheDir: null, background: [0.2, 0.4, 0.6] })));
      expect(pool.running).toBe(2);
      for (const [i, view] of views.entries()) {
        const here = await loadViewImageRgb8(view, { cacheDir: null, background: [0.2, 0.4, 0.6] });
        expect({ width: pooled[i].width, height: pooled[i].height, channels: pooled[i].channels }).toEqual({ width: here.width, height: here.height, channels: here.channels });
        expect(Buffer.from(pooled[i].data).equals(Buffer.from(here.data)), view.name).toBe(true);
      }
    } finally {
      await pool.close();
    }
  });

  it("rejects as this thread would (an ArgonautError keeps its code), passes warnings back, and stops idle threads", async () => {
    const { root, views } = await distortedViews();
    const pool = new ViewImagePool(workerScript, 1, 200);
    try {
      // not an image: the same error, by class, code and message
      const broken = path.join(root, 'broken.png');
      await writeFile(broken, 'not a png');
      const view = { ...views[0], imagePath: broken };
      const here = await loadViewImageRgb8(view, { cacheDir: null }).then(() => null, (e: unknown) => e);
      const there = await pool.load(view, { cacheDir: null }).then(() => null, (e: unknown) => e);
      expect(here).toBeInstanceOf(ArgonautError);
      expect(there).toBeInstanceOf(ArgonautError);
      expect({ code: (there as ArgonautError).code, message: (there as ArgonautError).message }).toEqual({ code: (here as ArgonautError).code, message: (here as ArgonautError).message });
      // a cache folder that cannot be made (a file in its way): the image loads, the warning comes back
      const blocked = path.join(await temp('view-pool-cache'), 'file');
      await writeFile(blocked, 'x');
      const warnings: string[] = [];
      const image = await pool.load(views[1], { cacheDir: path.join(blocked, 'cache'), warn: (m) => warnings.push(m) });
      expect(image.width).toBe(views[1].camera.width);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('could not write the image cache');
      // idle threads stop, and the next load starts one again
      expect(pool.running).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(pool.running).toBe(0);
      expect((await pool.load(views[2], { cacheDir: null })).width).toBe(views[2].camera.width);
    } finally {
      await pool.close();
    }
  });

  it('a thread that dies fails its load, naming the image, and the next load gets a new thread', async () => {
    const { views } = await distortedViews();
    const pool = new ViewImagePool(crashingWorker, 1);
    try {
      await expect(pool.load(views[0], { cacheDir: null })).rejects.toThrow(new RegExp(`thread loading ${views[0].imagePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} failed: worker fell over`));
      await expect(pool.load(views[1], { cacheDir: null })).rejects.toThrow(/worker fell over/);
    } finally {
      await pool.close();
    }
  });
});
