import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_MESH_TAUS, scoreAtTaus } from '../../../main/cli/commands/bench-mesh.js';
import { runCli } from '../../../main/cli/index.js';
import { bunnyAvailable, bunnyScene, tools } from '../../helpers/bunny-scene.js';
import { captureStreams } from '../../helpers/streams.js';

const available = bunnyAvailable();

describe('argonaut --no-gui bench mesh', () => {
  it.runIf(available)("trains with the protocol's --geometry unless told otherwise, carves with the photos' alpha, and reports F, precision and recall at tau 0.01 and 0.05", async () => {
    const s = await bunnyScene();
    const out = path.join(s.dir, 'bench-mesh.json');
    const streams = captureStreams();
    // --min-views 1: each of the few dozen triangles this undertrained model leaves is seen by one
    // view at most, so the visibility pass's default (2) would leave nothing to score
    const args = ['--no-gui', 'bench', 'mesh', s.data, '--steps', '150', '--init-points', '3000', '--sh-degree', '0', '--resolution', '40', '--target-triangles', '0', '--min-views', '1', '--metrics', path.join(tools, 'mesh-metrics.mjs'), '--out', out, '--json'];
    const code = await runCli(args, { streams });
    expect(code, streams.err()).toBe(0);
    const result = streams.jsonLines().at(-1)!;
    // a mesh to score (150 steps of 3,000 splats on llvmpipe leave a few dozen triangles at grid 40; an empty one would stop mesh-metrics)
    expect(result.triangles as number, JSON.stringify(result)).toBeGreaterThan(0);
    // the protocol's geometry-aware training; the explicit grid and triangle budget win over its 512 and 300k
    expect(result).toMatchObject({ type: 'result', bench: 'mesh', geometry: true, depth: 'median', resolution: 40, target_triangles: 0, carve_votes: 2, min_views: 1, image_alpha_views: 24, train_views: 24 });
    const scores = result.scores as { tau: number; fscore: number; precision: number; recall: number }[];
    expect(scores.map((m) => m.tau)).toEqual([0.01, 0.05]);
    for (const m of scores) {
      for (const v of [m.fscore, m.precision, m.recall]) {
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }
      expect(m.fscore).toBeCloseTo((2 * m.precision * m.recall) / (m.precision + m.recall || 1), 4);
    }
    // a looser threshold can only count more samples as close
    expect(scores[1].precision).toBeGreaterThanOrEqual(scores[0].precision);
    expect(scores[1].recall).toBeGreaterThanOrEqual(scores[0].recall);
    expect(result).toMatchObject({ fscore: scores[0].fscore, precision: scores[0].precision, recall: scores[0].recall, tau: 0.01 });
    const written = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(written.scores).toEqual(scores);
  }, 900_000);

  it('scores an empty mesh 0 at every tau without running the metrics tool (which refuses one)', async () => {
    const scores = await scoreAtTaus('/nonexistent/mesh-metrics.mjs', '/nonexistent/mesh.ply', '/nonexistent/gt.ply', 0);
    expect(scores.map((m) => [m.tau, m.fscore, m.precision, m.recall])).toEqual(BENCH_MESH_TAUS.map((tau) => [tau, 0, 0, 0]));
  });
});
