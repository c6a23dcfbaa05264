import { emptySplats, SH_C0, type SplatSet } from '../../../shared/scene/splats.js';
import type { TrainingData } from './data.js';
import { meanSquaredKnnDistance } from './knn.js';
import type { Random } from '../../../shared/random.js';

/**
 * Initial splats (gsplat's simple_trainer): from SfM points when the dataset has them, else
 * `randomCount` points uniform in the dataset's init box (or 3 x scene scale around the origin).
 * Scales: log of sqrt(mean squared distance to the 3 nearest neighbours); rotations: random
 * (normalized where used); opacity 0.1 (MCMC: 0.5, scales x 0.1); colour: the point colour (random for random points) as
 * the SH DC term, higher bands 0.
 */
export function initialSplats(data: Pick<TrainingData, 'points' | 'initBox' | 'sceneScale'>, shDegree: number, randomCount: number, random: Random, start: { opacity: number; scale: number } = { opacity: 0.1, scale: 1 }): SplatSet {
  let positions: Float32Array;
  let colors: Float32Array;
  if (data.points && data.points.positions.length >= 3) {
    positions = data.points.positions;
    colors = Float32Array.from(data.points.colors, (c) => c / 255);
  } else {
    const box = data.initBox ?? [-1, -1, -1, 1, 1, 1].map((v) => v * 3 * data.sceneScale);
    positions = new Float32Array(randomCount * 3);
    colors = new Float32Array(randomCount * 3);
    for (let i = 0; i < randomCount; i++)
      for (let a = 0; a < 3; a++) {
        positions[3 * i + a] = box[a] + (box[a + 3] - box[a]) * random.next();
        colors[3 * i + a] = random.next();
      }
  }
  const n = positions.length / 3;
  const splats = emptySplats(n, shDegree);
  splats.means.set(positions);
  const d2 = meanSquaredKnnDistance(positions, 3);
  const K = (shDegree + 1) ** 2;
  for (let i = 0; i < n; i++) {
    const logScale = Math.log(Math.max(Math.sqrt(d2[i]) * start.scale, 1e-7));
    splats.logScales.set([logScale, logScale, logScale], 3 * i);
    splats.quats.set([random.next(), random.next(), random.next(), random.next()], 4 * i);
    splats.opacityLogits[i] = Math.log(start.opacity / (1 - start.opacity));
    for (let c = 0; c < 3; c++) splats.sh[i * K * 3 + c] = (colors[3 * i + c] - 0.5) / SH_C0;
  }
  return splats;
}
