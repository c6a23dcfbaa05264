/**
 * Descriptor matching in float64 (kernels/match-nearest.wgsl's reference): the two largest dot
 * products of each query (ties: the lower index), COLMAP's ratio and distance tests on the
 * descriptor angles, the mutual check.
 */
export interface ReferenceNearest {
  index: number[];
  best: number[];
  second: number[];
}

/** Descriptors as bytes, 128 each; dot products of bytes / 512. */
export function referenceNearest(query: Uint8Array, train: Uint8Array): ReferenceNearest {
  const nq = query.length / 128;
  const nt = train.length / 128;
  const out: ReferenceNearest = { index: [], best: [], second: [] };
  for (let i = 0; i < nq; i++) {
    let best = -1;
    let second = -1;
    let index = 0xffffffff;
    for (let j = 0; j < nt; j++) {
      let dot = 0;
      for (let c = 0; c < 128; c++) dot += (query[i * 128 + c] / 512) * (train[j * 128 + c] / 512);
      if (dot > best) {
        second = best;
        best = dot;
        index = j;
      } else if (dot > second) second = dot;
    }
    out.index.push(index);
    out.best.push(best);
    out.second.push(second);
  }
  return out;
}

export function referenceMatches(a: Uint8Array, b: Uint8Array, ratio = 0.8, maxDistance = 0.7, mutual = true): [number, number][] {
  const forward = referenceNearest(a, b);
  const backward = referenceNearest(b, a);
  const pairs: [number, number][] = [];
  forward.index.forEach((j, i) => {
    if (j === 0xffffffff) return;
    const dBest = Math.acos(Math.min(1, forward.best[i]));
    const dSecond = Math.acos(Math.min(1, forward.second[i]));
    if (dBest > maxDistance || dBest >= ratio * dSecond) return;
    if (mutual && backward.index[j] !== i) return;
    pairs.push([i, j]);
  });
  return pairs;
}
