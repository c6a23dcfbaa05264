/**
 * Geometric verification's CPU time per pair on synthetic scenes (tests/main/engine/sfm/verify-scenes.ts):
 * 4096 matches, 0.5 px noise, 0%, 30% and 50% outliers, general / planar / rotation, and random
 * matches (the worst case: RANSAC runs to its iteration cap). CPU time of this process, so a loaded
 * machine does not inflate it.
 *   npx esbuild bench/sfm-verify.ts --bundle --platform=node --format=esm --outfile=out/tmp/sfm-verify.mjs
 *   && node out/tmp/sfm-verify.mjs
 */
import { estimateTwoViewGeometry } from '../main/engine/sfm/verify/two-view-geometry.js';
import { CAMERA, syntheticPair, type SceneKind } from '../tests/main/engine/sfm/verify-scenes.js';

const MATCHES = 4096;
const cpuMs = (): number => process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000;
const cases: [SceneKind, number][] = [['general', 0], ['general', 0.3], ['general', 0.5], ['planar', 0.3], ['rotation', 0.3], ['general', 1]];
for (const [kind, outliers] of cases) {
  const times: number[] = [];
  let configuration = 0;
  for (let seed = 1; seed <= 3; seed++) {
    const scene = syntheticPair(seed, kind, MATCHES, outliers, 0.5);
    const start = cpuMs();
    configuration = estimateTwoViewGeometry(scene.points1, scene.points2, [CAMERA, CAMERA]).configuration;
    times.push(cpuMs() - start);
  }
  times.sort((a, b) => a - b);
  console.log(`${kind.padEnd(8)} outliers ${String(outliers * 100).padStart(3)}%: median ${times[1].toFixed(0)} CPU ms per pair (min ${times[0].toFixed(0)}, max ${times[2].toFixed(0)}), configuration ${configuration}`);
}
