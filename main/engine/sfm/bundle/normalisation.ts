/**
 * Bundle adjustment's conditioning: a similarity X' = s (X - m) that puts the points' median (per
 * coordinate) at the origin and their median distance to it at 1, rotations unchanged. A camera
 * keeps its pixels: s X_c = R X' + s (t + R m), so t' = s (t + R m). Both solvers adjust in this
 * frame (the GPU's float32 buffers need it; pixel residuals are the same in any similar frame)
 * and hand the result back through the inverse.
 */
import { median } from '../../../../shared/math/median.js';
import { copyProblem, type BaProblem } from './problem.js';

export interface Similarity {
  /** m: the points' per-coordinate median. */
  centre: [number, number, number];
  /** s: 1 / the points' median distance to m. */
  scale: number;
}

export function normalisingSimilarity(points: Float64Array): Similarity {
  const count = points.length / 3;
  const coordinate = (c: number) => median(Float64Array.from({ length: count }, (_, j) => points[3 * j + c]));
  const centre: [number, number, number] = [coordinate(0), coordinate(1), coordinate(2)];
  const distance = median(Float64Array.from({ length: count }, (_, j) => Math.hypot(points[3 * j] - centre[0], points[3 * j + 1] - centre[1], points[3 * j + 2] - centre[2])));
  // All points at one spot (or none): no scale to take from them.
  return { centre, scale: distance > 0 && Number.isFinite(distance) ? 1 / distance : 1 };
}

/** The problem in the similarity's frame (a copy). */
export function toNormalisedFrame(problem: BaProblem, similarity: Similarity): BaProblem {
  const out = copyProblem(problem);
  const { centre: m, scale: s } = similarity;
  for (let j = 0; j < out.points.length; j += 3) for (let c = 0; c < 3; c++) out.points[j + c] = s * (out.points[j + c] - m[c]);
  forEachImage(out, (r, t, i) => {
    for (let row = 0; row < 3; row++) t[3 * i + row] = s * (t[3 * i + row] + r[9 * i + 3 * row] * m[0] + r[9 * i + 3 * row + 1] * m[1] + r[9 * i + 3 * row + 2] * m[2]);
  });
  return out;
}

/** The inverse: X = X' / s + m, t = t' / s - R m (a copy). */
export function fromNormalisedFrame(problem: BaProblem, similarity: Similarity): BaProblem {
  const out = copyProblem(problem);
  const { centre: m, scale: s } = similarity;
  for (let j = 0; j < out.points.length; j += 3) for (let c = 0; c < 3; c++) out.points[j + c] = out.points[j + c] / s + m[c];
  forEachImage(out, (r, t, i) => {
    for (let row = 0; row < 3; row++) t[3 * i + row] = t[3 * i + row] / s - (r[9 * i + 3 * row] * m[0] + r[9 * i + 3 * row + 1] * m[1] + r[9 * i + 3 * row + 2] * m[2]);
  });
  return out;
}

function forEachImage(problem: BaProblem, visit: (rotations: Float64Array, translations: Float64Array, image: number) => void): void {
  for (let i = 0; i < problem.rotations.length / 9; i++) visit(problem.rotations, problem.translations, i);
}
