/**
 * A table with four thin legs (tests/main/engine/mesh/thin-parts.test.ts): built here as boxes,
 * rendered into a posed RGBA dataset by ../shared/tools/render-views.mjs (24 + 2 views, 96 px;
 * the legs are about 2 px and 3 voxels of a 96 grid wide), its normalised gt_mesh.ply read back.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { tools } from './bunny-scene.js';

/** Source frame: the top is 1.4 x 0.08 x 0.9 at y 0.21..0.29; legs 0.05 square from y -0.61 up into it. */
const TOP = { center: [0, 0.25, 0], half: [0.7, 0.04, 0.45] };
const LEG_HALF = [0.025, 0.41, 0.025];
const LEGS = [-1, 1].flatMap((x) => [-1, 1].map((z) => ({ center: [0.6 * x, -0.2, 0.37 * z], half: LEG_HALF })));

function boxObj(boxes: { center: number[]; half: number[] }[]): string {
  const lines: string[] = [];
  boxes.forEach((b, i) => {
    for (let c = 0; c < 8; c++) lines.push(`v ${[0, 1, 2].map((a) => b.center[a] + ((c >> a) & 1 ? 1 : -1) * b.half[a]).join(' ')}`);
    const o = 8 * i + 1;
    // faces as quads over the corner bits (x = 1, y = 2, z = 4), wound outward
    for (const q of [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]]) lines.push(`f ${q.map((k) => k + o).join(' ')}`);
  });
  return `${lines.join('\n')}\n`;
}

export interface TableScene {
  /** The posed dataset (transforms_*.json, RGBA views, gt_mesh.ply). */
  data: string;
  dir: string;
  /** gt_mesh.ply: the table in the cameras' frame (normalised to the unit sphere). */
  gt: { positions: Float32Array; triangles: Uint32Array };
  /** The GT triangles of the legs below the top. */
  legTriangles: Uint32Array;
  /** Top of the table in the normalised frame (its highest y). */
  topY: number;
}

const run = promisify(execFile);

export function tableAvailable(): boolean {
  return existsSync(path.join(tools, 'render-views.mjs'));
}

let scene: Promise<TableScene> | undefined;

export function tableScene(): Promise<TableScene> {
  scene ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'argonaut-table-'));
    const obj = path.join(dir, 'table.obj');
    writeFileSync(obj, boxObj([TOP, ...LEGS]));
    const data = path.join(dir, 'views');
    await run(process.execPath, [path.join(tools, 'render-views.mjs'), obj, '--out', data, '--train', '24', '--test', '2', '--size', '96', '--quiet']);
    const { loadMesh } = (await import(/* @vite-ignore */ path.join(tools, 'lib/mesh-io.mjs'))) as { loadMesh: (f: string, o: object) => { positions: Float32Array; triangles: Uint32Array } };
    const gt = loadMesh(path.join(data, 'gt_mesh.ply'), { loadTextures: false });
    const ys = Array.from({ length: gt.positions.length / 3 }, (_, v) => gt.positions[3 * v + 1]);
    const topY = Math.max(...ys);
    const scale = (topY - Math.min(...ys)) / 0.9; // source height 0.9 (legs' foot -0.61 to the top 0.29)
    // every triangle of the top lies at or above its underside; each leg face reaches below it
    const underTop = topY - 2 * TOP.half[1] * scale - 0.01;
    const legs: number[] = [];
    for (let t = 0; t < gt.triangles.length / 3; t++) {
      const y = [0, 1, 2].map((k) => gt.positions[3 * gt.triangles[3 * t + k] + 1]);
      if (Math.min(...y) < underTop) legs.push(gt.triangles[3 * t], gt.triangles[3 * t + 1], gt.triangles[3 * t + 2]);
    }
    return { data, dir, gt, legTriangles: Uint32Array.from(legs), topY };
  })();
  return scene;
}
