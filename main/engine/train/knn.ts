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
  const coord = (v: number, a: number) => Math.min(cells - 1, Math.max(0, Math.floor((v - min[a]) / cell)));
  // The points by cell in one flat array (a counting sort; `first[c]` .. `first[c + 1]` is cell c):
  // a Map of arrays took 4.6-5.9 s for mic's 100k random points on the loaded 2-core machine, this
  // 0.9 s, on the cold start's path. Exact search either way: the same k distances, summed in the
  // same order, so the same bits.
  const cellOf = new Int32Array(n);
  const first = new Int32Array(cells * cells * cells + 1);
  for (let i = 0; i < n; i++) {
    const c = (coord(positions[3 * i], 0) * cells + coord(positions[3 * i + 1], 1)) * cells + coord(positions[3 * i + 2], 2);
    cellOf[i] = c;
    first[c + 1]++;
  }
  for (let c = 0; c < cells * cells * cells; c++) first[c + 1] += first[c];
  const members = new Int32Array(n);
  const filled = first.slice(0, cells * cells * cells);
  for (let i = 0; i < n; i++) members[filled[cellOf[i]]++] = i;
  const grid = { first, members };
  const best = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const cz = cellOf[i] % cells;
    const cy = ((cellOf[i] - cz) / cells) % cells;
    const cx = (cellOf[i] - cz - cy * cells) / (cells * cells);
    best.fill(Infinity);
    for (let r = 0; r <= cells; r++) {
      // search the shell at Chebyshev radius r
      for (let x = Math.max(0, cx - r); x <= Math.min(cells - 1, cx + r); x++)
        for (let y = Math.max(0, cy - r); y <= Math.min(cells - 1, cy + r); y++) {
          const row = (x * cells + y) * cells;
          if (r === 0 || x === cx - r || x === cx + r || y === cy - r || y === cy + r) {
            for (let z = Math.max(0, cz - r); z <= Math.min(cells - 1, cz + r); z++) nearestInCell(row + z, i, positions, grid, best);
          } else {
            // inside the shell's x and y range: only its two z faces
            if (cz - r >= 0) nearestInCell(row + cz - r, i, positions, grid, best);
            if (cz + r < cells) nearestInCell(row + cz + r, i, positions, grid, best);
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

/** Keeps `best` (ascending, length k) the k smallest squared distances from point i to the points of cell c. */
function nearestInCell(c: number, i: number, positions: Float32Array, grid: { first: Int32Array; members: Int32Array }, best: Float64Array) {
  const k = best.length;
  const px = positions[3 * i];
  const py = positions[3 * i + 1];
  const pz = positions[3 * i + 2];
  for (let m = grid.first[c]; m < grid.first[c + 1]; m++) {
    const j = grid.members[m];
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
