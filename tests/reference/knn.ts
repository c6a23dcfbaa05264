/**
 * Brute-force reference of main/engine/train/knn.ts: for each point (xyz triples), the mean squared
 * distance to its k nearest other points (fewer when there are fewer), in float64. O(n^2 log n):
 * tests only.
 */
export function meanSquaredKnnReference(points: Float32Array, k: number): Float64Array {
  const n = points.length / 3;
  return Float64Array.from({ length: n }, (_, i) => {
    const d: number[] = [];
    for (let j = 0; j < n; j++) if (j !== i) d.push((points[3 * j] - points[3 * i]) ** 2 + (points[3 * j + 1] - points[3 * i + 1]) ** 2 + (points[3 * j + 2] - points[3 * i + 2]) ** 2);
    d.sort((a, b) => a - b);
    return d.slice(0, k).reduce((a, b) => a + b, 0) / Math.min(k, d.length);
  });
}
