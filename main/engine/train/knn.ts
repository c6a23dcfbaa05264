/**
 * Mean squared distance to the k nearest neighbours of every point (uniform-grid search),
 * for the initial splat scales (gsplat: sqrt of the mean of the 3 nearest squared distances).
 */
export function meanSquaredKnnDistance(positions: Float32Array, k = 3): Float32Array {
  const n = positions.length / 3;
  const out = new Float32Array(n);
  if (n <= 1) {
    out.fill(n === 1 ? 1e-4 : 0);
    return out;
  }
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++)
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a], positions[3 * i + a]);
      max[a] = Math.max(max[a], positions[3 * i + a]);
    }
  const extent = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2], 1e-9);
  // about 2 points per cell
  const cells = Math.max(1, Math.min(256, Math.round(Math.cbrt(n / 2))));
  const cell = extent / cells;
  const key = (x: number, y: number, z: number) => (x * cells + y) * cells + z;
  const coord = (v: number, a: number) => Math.min(cells - 1, Math.max(0, Math.floor((v - min[a]) / cell)));
  const buckets = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const kk = key(coord(positions[3 * i], 0), coord(positions[3 * i + 1], 1), coord(positions[3 * i + 2], 2));
    let list = buckets.get(kk);
    if (!list) buckets.set(kk, (list = []));
    list.push(i);
  }
  const best = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const px = positions[3 * i];
    const py = positions[3 * i + 1];
    const pz = positions[3 * i + 2];
    const cx = coord(px, 0);
    const cy = coord(py, 1);
    const cz = coord(pz, 2);
    best.fill(Infinity);
    for (let r = 0; r <= cells; r++) {
      // search the shell at Chebyshev radius r
      for (let x = cx - r; x <= cx + r; x++)
        for (let y = cy - r; y <= cy + r; y++)
          for (let z = cz - r; z <= cz + r; z++) {
            if (Math.max(Math.abs(x - cx), Math.abs(y - cy), Math.abs(z - cz)) !== r) continue;
            if (x < 0 || y < 0 || z < 0 || x >= cells || y >= cells || z >= cells) continue;
            for (const j of buckets.get(key(x, y, z)) ?? []) {
              if (j === i) continue;
              const d = (positions[3 * j] - px) ** 2 + (positions[3 * j + 1] - py) ** 2 + (positions[3 * j + 2] - pz) ** 2;
              if (d < best[k - 1]) {
                let at = k - 1;
                while (at > 0 && best[at - 1] > d) {
                  best[at] = best[at - 1];
                  at--;
                }
                best[at] = d;
              }
            }
          }
      // every point outside the searched cube is at least r * cell away
      if (best[k - 1] <= (r * cell) ** 2) break;
    }
    let sum = 0;
    let m = 0;
    for (const d of best)
      if (Number.isFinite(d)) {
        sum += d;
        m++;
      }
    out[i] = m ? sum / m : 0;
  }
  return out;
}
