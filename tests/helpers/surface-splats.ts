import { emptySplats, SH_C0, type SplatSet } from '../../shared/scene/splats.js';
import { rng } from './random.js';

/**
 * Flat, nearly opaque splats sampled uniformly by area on a triangle mesh, each a disc in its
 * triangle's plane: what ideal training would converge to on an opaque surface. Lets mesh
 * extraction be tested without training.
 */
export function splatsOnMesh(positions: ArrayLike<number>, triangles: ArrayLike<number>, count: number, seed: number, color: (p: number[]) => number[] = () => [0.6, 0.5, 0.4]): SplatSet {
  const random = rng(seed);
  const nt = triangles.length / 3;
  const cumulative = new Float64Array(nt);
  const normals: number[][] = [];
  let area = 0;
  for (let t = 0; t < nt; t++) {
    const [a, b, c] = [0, 1, 2].map((k) => [0, 1, 2].map((d) => positions[3 * triangles[3 * t + k] + d]));
    const e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    const e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    const len = Math.hypot(n[0], n[1], n[2]);
    area += len / 2;
    cumulative[t] = area;
    normals.push(len > 0 ? n.map((x) => x / len) : [0, 0, 1]);
  }
  const splats = emptySplats(count, 0);
  const radius = Math.sqrt(area / count / Math.PI) * 1.5;
  for (let i = 0; i < count; i++) {
    const target = random() * area;
    let lo = 0;
    let hi = nt - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    let u = random();
    let v = random();
    if (u + v > 1) [u, v] = [1 - u, 1 - v];
    const [a, b, c] = [0, 1, 2].map((k) => [0, 1, 2].map((d) => positions[3 * triangles[3 * lo + k] + d]));
    const p = [0, 1, 2].map((d) => a[d] + u * (b[d] - a[d]) + v * (c[d] - a[d]));
    splats.means.set(p, 3 * i);
    splats.logScales.set([Math.log(radius), Math.log(radius), Math.log(radius * 0.05)], 3 * i);
    // rotation taking +z to the normal: half-way quaternion (w, x, y, z)
    const n = normals[lo];
    let q = [1 + n[2], -n[1], n[0], 0];
    if (q[0] < 1e-6) q = [0, 1, 0, 0];
    const ql = Math.hypot(...q);
    splats.quats.set(q.map((x) => x / ql), 4 * i);
    splats.opacityLogits[i] = 4;
    const rgb = color(p);
    for (let ch = 0; ch < 3; ch++) splats.sh[3 * i + ch] = (rgb[ch] - 0.5) / SH_C0;
  }
  return splats;
}
