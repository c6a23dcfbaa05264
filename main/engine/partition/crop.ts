/**
 * Cropping blocks to their cores and joining them (merge.ts): a block keeps the splats whose
 * centres lie in its core (split.ts coreIndexOf: half-open cells, outer edges open), so the
 * cores' splats tile the scene with none lost and none twice; joining concatenates them at one
 * SH degree.
 */
import type { Partition } from '../../../shared/project/partition.js';
import { emptySplats, type SplatSet } from '../../../shared/scene/splats.js';
import { withShDegree } from '../train/job.js';
import { toGround } from './ground.js';
import { coreIndexOf, outerRect } from './split.js';

/** The indices of the splats whose centres fall in block `blockIndex`'s core. */
export function coreSplatIndices(splats: SplatSet, partition: Partition, blockIndex: number): number[] {
  const cores = partition.blocks.map((b) => b.core);
  const outer = outerRect(cores);
  const kept: number[] = [];
  for (let i = 0; i < splats.count; i++) {
    const [u, v] = toGround(partition.ground, [splats.means[3 * i]!, splats.means[3 * i + 1]!, splats.means[3 * i + 2]!]);
    if (coreIndexOf(cores, outer, u, v) === blockIndex) kept.push(i);
  }
  return kept;
}

/** The splats at these indices, in order. */
export function pickSplats(splats: SplatSet, indices: readonly number[]): SplatSet {
  const K = (splats.shDegree + 1) ** 2;
  const out = emptySplats(indices.length, splats.shDegree);
  indices.forEach((from, to) => {
    out.means.set(splats.means.subarray(3 * from, 3 * from + 3), 3 * to);
    out.logScales.set(splats.logScales.subarray(3 * from, 3 * from + 3), 3 * to);
    out.quats.set(splats.quats.subarray(4 * from, 4 * from + 4), 4 * to);
    out.opacityLogits[to] = splats.opacityLogits[from]!;
    out.sh.set(splats.sh.subarray(from * K * 3, (from + 1) * K * 3), to * K * 3);
  });
  return out;
}

export function cropToCore(splats: SplatSet, partition: Partition, blockIndex: number): SplatSet {
  return pickSplats(splats, coreSplatIndices(splats, partition, blockIndex));
}

/** One set of all the splats, at the highest SH degree among them (missing bands zero). */
export function joinSplats(sets: readonly SplatSet[]): SplatSet {
  const degree = Math.max(0, ...sets.map((s) => s.shDegree));
  const count = sets.reduce((n, s) => n + s.count, 0);
  const out = emptySplats(count, degree);
  let at = 0;
  for (const raw of sets) {
    const s = withShDegree(raw, degree);
    out.means.set(s.means, 3 * at);
    out.logScales.set(s.logScales, 3 * at);
    out.quats.set(s.quats, 4 * at);
    out.opacityLogits.set(s.opacityLogits, at);
    out.sh.set(s.sh, at * (degree + 1) ** 2 * 3);
    at += s.count;
  }
  return out;
}
