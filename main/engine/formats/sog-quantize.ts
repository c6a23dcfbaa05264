/**
 * The quantizers SOG needs (sog.ts): a 256-entry scalar codebook shared by several columns (1D
 * k-means, run on the sorted values so each pass is linear), and a palette of SH vectors (at
 * most 65,536: labels are 16 bits). PlayCanvas' writer clusters the SH palette with k-means on
 * the GPU; ours runs on the CPU in linear time: splats in Morton order of their positions, each
 * palette entry starts as the mean of a run of neighbours, and each splat then looks for its
 * nearest entry among the 17 around its own run (a local k-means). Scenes of at most 65,536
 * splats get one entry each, so only the codebook rounds their SH.
 */

export const CODEBOOK_SIZE = 256;
export const MAX_PALETTE = 65_536;
const CODEBOOK_PASSES = 10;
const PALETTE_PASSES = 2;
const PALETTE_SEARCH = 8;

export interface ScalarCodebook {
  /** Ascending centroids (CODEBOOK_SIZE of them; repeated where there are fewer distinct values). */
  codebook: Float32Array;
  /** Per column, per value: the index of its nearest centroid. */
  labels: Uint8Array[];
}

/** Index of the centroid nearest to v in an ascending codebook. */
export function nearestCentroid(codebook: Float32Array, v: number): number {
  let lo = 0;
  let hi = codebook.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (codebook[mid] <= v) lo = mid;
    else hi = mid;
  }
  return Math.abs(v - codebook[lo]) <= Math.abs(codebook[hi] - v) ? lo : hi;
}

/** One codebook for all `columns` together (SOG shares one per attribute: the three scales, the three DC colours). */
export function scalarCodebook(columns: readonly Float32Array[]): ScalarCodebook {
  const total = columns.reduce((sum, c) => sum + c.length, 0);
  const sorted = new Float32Array(total);
  let at = 0;
  for (const c of columns) {
    sorted.set(c, at);
    at += c.length;
  }
  sorted.sort();
  const codebook = new Float32Array(CODEBOOK_SIZE);
  if (total === 0) return { codebook, labels: columns.map(() => new Uint8Array(0)) };
  for (let k = 0; k < CODEBOOK_SIZE; k++) codebook[k] = sorted[Math.min(total - 1, Math.floor(((k + 0.5) * total) / CODEBOOK_SIZE))];
  const sums = new Float64Array(CODEBOOK_SIZE);
  const counts = new Float64Array(CODEBOOK_SIZE);
  const midpoints = new Float64Array(CODEBOOK_SIZE - 1);
  for (let pass = 0; pass < CODEBOOK_PASSES; pass++) {
    sums.fill(0);
    counts.fill(0);
    for (let k = 0; k < CODEBOOK_SIZE - 1; k++) midpoints[k] = (codebook[k] + codebook[k + 1]) / 2;
    let k = 0;
    for (let i = 0; i < total; i++) {
      const v = sorted[i];
      while (k < CODEBOOK_SIZE - 1 && v > midpoints[k]) k++;
      sums[k] += v;
      counts[k]++;
    }
    for (let k2 = 0; k2 < CODEBOOK_SIZE; k2++) if (counts[k2] > 0) codebook[k2] = sums[k2] / counts[k2];
    codebook.sort();
  }
  const labels = columns.map((c) => {
    const out = new Uint8Array(c.length);
    for (let i = 0; i < c.length; i++) out[i] = nearestCentroid(codebook, c[i]);
    return out;
  });
  return { codebook, labels };
}

/** Splat indices in Morton (Z-curve) order of their positions: neighbours in space, neighbours here. */
export function mortonOrder(means: Float32Array, count: number): Uint32Array {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a], means[3 * i + a]);
      max[a] = Math.max(max[a], means[3 * i + a]);
    }
  }
  const spread = (x: number) => {
    let v = x & 0x3ff;
    v = (v | (v << 16)) & 0x030000ff;
    v = (v | (v << 8)) & 0x0300f00f;
    v = (v | (v << 4)) & 0x030c30c3;
    return (v | (v << 2)) & 0x09249249;
  };
  const keys = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    let key = 0;
    for (let a = 0; a < 3; a++) {
      const t = max[a] > min[a] ? (means[3 * i + a] - min[a]) / (max[a] - min[a]) : 0;
      key |= spread(Math.min(1023, Math.floor(t * 1024))) << a;
    }
    keys[i] = key >>> 0;
  }
  return Uint32Array.from({ length: count }, (_, i) => i).sort((a, b) => keys[a] - keys[b] || a - b);
}

export interface ShPalette {
  /** entries x dims, row-major. */
  centroids: Float32Array;
  entries: number;
  /** Per splat: its palette entry. */
  labels: Uint32Array;
}

/** At most MAX_PALETTE vectors standing for the `dims`-long SH rest vectors of `count` splats. */
export function shPalette(rest: Float32Array, count: number, dims: number, order: Uint32Array): ShPalette {
  if (count <= MAX_PALETTE) return { centroids: rest.slice(0, count * dims), entries: count, labels: Uint32Array.from({ length: count }, (_, i) => i) };
  const entries = MAX_PALETTE;
  const centroids = new Float32Array(entries * dims);
  const labels = new Uint32Array(count);
  const home = (rank: number) => Math.floor((rank * entries) / count);
  for (let rank = 0; rank < count; rank++) labels[order[rank]] = home(rank);
  const sums = new Float64Array(entries * dims);
  const sizes = new Uint32Array(entries);
  const update = () => {
    sums.fill(0);
    sizes.fill(0);
    for (let i = 0; i < count; i++) {
      const e = labels[i];
      sizes[e]++;
      for (let d = 0; d < dims; d++) sums[e * dims + d] += rest[i * dims + d];
    }
    for (let e = 0; e < entries; e++) if (sizes[e] > 0) for (let d = 0; d < dims; d++) centroids[e * dims + d] = sums[e * dims + d] / sizes[e];
  };
  update();
  for (let pass = 0; pass < PALETTE_PASSES; pass++) {
    for (let rank = 0; rank < count; rank++) {
      const i = order[rank];
      const h = home(rank);
      let best = labels[i];
      let bestDistance = Infinity;
      for (let e = Math.max(0, h - PALETTE_SEARCH); e <= Math.min(entries - 1, h + PALETTE_SEARCH); e++) {
        if (sizes[e] === 0) continue;
        let distance = 0;
        for (let d = 0; d < dims && distance < bestDistance; d++) {
          const diff = rest[i * dims + d] - centroids[e * dims + d];
          distance += diff * diff;
        }
        if (distance < bestDistance) {
          bestDistance = distance;
          best = e;
        }
      }
      labels[i] = best;
    }
    update();
  }
  return { centroids, entries, labels };
}
