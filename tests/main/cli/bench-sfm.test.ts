import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { tempDir } from '../../helpers/datasets.js';
import { encodePng } from '../../helpers/images.js';
import { freshSeed, rng } from '../../helpers/random.js';
import { spawnCli } from '../../helpers/spawn-cli.js';
import { captureStreams } from '../../helpers/streams.js';
import { blobImage, crop } from '../engine/sfm/sift-images.js';

/** Three overlapping crops of one blob image, as grey PNGs: every pair shares most of its content. */
async function cropFolder(seed: number): Promise<string> {
  const dir = await tempDir('bench-sfm');
  const image = blobImage(260, 200, rng(seed));
  for (const [k, [x, y]] of [[0, 0], [30, 20], [60, 40]].entries()) {
    const c = crop(image, x, y, 200, 160);
    await writeFile(path.join(dir, `view_${k}.png`), encodePng({ width: c.width, height: c.height, colorType: 0, depth: 8, samples: Array.from(c.data, (v) => Math.round(255 * Math.min(1, Math.max(0, v)))) }));
  }
  await writeFile(path.join(dir, 'notes.txt'), 'not an image');
  return dir;
}

describe('argonaut --no-gui bench sfm', () => {
  it('the built CLI verifies on its worker threads (out/cli/verify-worker.mjs) with the in-process answers', async () => {
    const seed = freshSeed();
    const dir = await cropFolder(seed);
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'bench', 'sfm', dir, '--max-features', '300', '--json'], { streams: s }), s.err()).toBe(0);
    const inProcess = s.jsonLines().at(-1) as Record<string, unknown>; // from source: verified on this thread
    const cli = spawnCli(['bench', 'sfm', dir, '--max-features', '300']);
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(0);
    const built = cli.lines.at(-1) as { stages: { verify: { threads: number } }; inliers_by_pair: unknown; matches_by_pair: unknown };
    expect(built.stages.verify.threads).toBeGreaterThanOrEqual(1);
    expect(built.matches_by_pair, `seed ${seed}`).toEqual(inProcess.matches_by_pair);
    expect(built.inliers_by_pair, `seed ${seed}`).toEqual(inProcess.inliers_by_pair);
  }, 120_000);

  it('times extraction, matching and verification of a photo folder and writes the result as the other benchmarks do', async () => {
    const seed = freshSeed();
    const dir = await cropFolder(seed);
    const out = path.join(dir, 'result.json');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'sfm', dir, '--max-features', '500', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8'));
    expect(result).toMatchObject({ bench: 'sfm', kind: 'photos', images: 3, max_features: 500, pairs_chosen: 3, stages: { pairs: { method: 'exhaustive' }, map: 'not yet' } });
    for (const stage of ['extract', 'pairs', 'match', 'verify']) for (const key of ['wall_ms', 'cpu_ms']) expect(Number.isFinite(result.stages[stage][key]), `${stage}.${key}`).toBe(true);
    expect(result.features_per_image.each).toHaveLength(3);
    expect(result.features_per_image.max, `seed ${seed}`).toBeLessThanOrEqual(500);
    expect(result.features_per_image.min, `seed ${seed}`).toBeGreaterThan(20);
    expect(result.pairs_matched, `seed ${seed}`).toBe(3);
    expect(result.matches_per_pair.mean, `seed ${seed}`).toBeGreaterThanOrEqual(15);
    expect(result.images_without_matched_pair).toEqual([]);
    // crops of one image differ by a shift: a homography explains every pair (no intrinsics, so F and H only)
    expect(result.pairs_verified, `seed ${seed}`).toBe(3);
    expect(result.min_inliers).toBe(15);
    expect(result.inliers_per_pair.min, `seed ${seed}`).toBeGreaterThanOrEqual(15);
    expect(result.configurations, `seed ${seed}`).toEqual({ PLANAR_OR_PANORAMIC: 3 });
    expect(result.inliers_by_pair.map((p: number[]) => p.slice(0, 2))).toEqual([[0, 1], [0, 2], [1, 2]]);
    result.inliers_by_pair.forEach((p: number[], k: number) => expect(p[2]).toBeLessThanOrEqual(result.matches_by_pair[k][2]));
    expect(result.images_without_verified_pair).toEqual([]);
    for (const key of ['backend', 'adapter', 'commit', 'date']) expect(typeof result[key], key).toBe('string');
    expect(s.jsonLines().at(-1)).toMatchObject({ type: 'result', bench: 'sfm' });

    const forced = captureStreams();
    expect(await runCli(['--no-gui', 'bench', 'sfm', dir, '--max-features', '300', '--pairs', 'retrieval', '--neighbours', '1', '--words', '4', '--json'], { streams: forced }), forced.err()).toBe(0);
    const r = forced.jsonLines().at(-1) as { stages: { pairs: { method: string } }; pairs_chosen: number };
    expect(r.stages.pairs.method).toBe('retrieval');
    expect(r.pairs_chosen).toBeGreaterThanOrEqual(2); // each image's best other, symmetric: 2 or 3 pairs of 3 images
    expect(r.pairs_chosen).toBeLessThanOrEqual(3);
  }, 300_000);

  it('refuses what it cannot bench: usage errors exit 2, bad input 3 naming the path', async () => {
    for (const args of [[], ['a', 'b'], ['x', '--pairs', 'all'], ['x', '--frames', '0']]) {
      const s = captureStreams();
      expect(await runCli(['--no-gui', 'bench', 'sfm', ...args], { streams: s }), args.join(' ')).toBe(2);
    }
    const dir = await tempDir('bench-sfm-empty');
    await writeFile(path.join(dir, 'only.png'), encodePng({ width: 4, height: 4, colorType: 0, depth: 8, samples: new Array(16).fill(0) }));
    for (const [input, message] of [[dir, '1 images'], [path.join(dir, 'missing'), 'no such file or folder'], [path.join(dir, 'only.png'), 'neither a folder of images nor a video']]) {
      const s = captureStreams();
      expect(await runCli(['--no-gui', 'bench', 'sfm', input], { streams: s }), input).toBe(3);
      expect(s.err()).toContain(input);
      expect(s.err()).toContain(message);
    }
  }, 120_000);
});
