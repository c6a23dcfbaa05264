/**
 * The indexed triangle mesh every later stage works on, and the host-side stages that need no
 * GPU: welding marching-cubes output, dropping unreferenced vertices, vertex normals.
 */
import type { TriangleMesh } from '../../../shared/scene/mesh.js';
import type { TriangleSoup } from './marching-cubes.js';

export type { TriangleMesh };

export function vertexCount(mesh: TriangleMesh): number {
  return mesh.positions.length / 3;
}

export function triangleCount(mesh: TriangleMesh): number {
  return mesh.indices.length / 3;
}

/**
 * Merges soup vertices that lie on the same grid edge (same key): marching cubes computes such
 * a vertex identically in every cell that uses it, so the first occurrence stands for all.
 * An open-addressing hash over typed arrays: millions of vertices in well under a second.
 */
export function weldSoup(soup: TriangleSoup): TriangleMesh {
  const corners = soup.triangles * 3;
  let size = 1;
  while (size < corners * 2) size <<= 1;
  const mask = size - 1;
  const slotKey = new Uint32Array(size);
  const slotVertex = new Int32Array(size).fill(-1);
  const indices = new Uint32Array(corners);
  const firstCorner: number[] = [];
  for (let c = 0; c < corners; c++) {
    const key = soup.keys[c];
    let slot = Math.imul(key, 0x9e3779b1) >>> 0 & mask;
    for (;;) {
      const v = slotVertex[slot];
      if (v < 0) {
        slotKey[slot] = key;
        slotVertex[slot] = firstCorner.length;
        indices[c] = firstCorner.length;
        firstCorner.push(c);
        break;
      }
      if (slotKey[slot] === key) {
        indices[c] = v;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  const n = firstCorner.length;
  const positions = new Float32Array(n * 3);
  const colors = new Uint8Array(n * 3);
  firstCorner.forEach((c, v) => {
    positions.set(soup.positions.subarray(3 * c, 3 * c + 3), 3 * v);
    colors.set(soup.colors.subarray(4 * c, 4 * c + 3), 3 * v);
  });
  return { positions, colors, indices };
}

/** Keeps the triangles `keep` marks (all when omitted) and only the vertices they use, in first-use order. */
export function compactMesh(mesh: TriangleMesh, keep?: (triangle: number) => boolean): TriangleMesh {
  const remap = new Int32Array(vertexCount(mesh)).fill(-1);
  const kept: number[] = [];
  const triangles = triangleCount(mesh);
  let next = 0;
  for (let t = 0; t < triangles; t++) {
    if (keep && !keep(t)) continue;
    for (let k = 0; k < 3; k++) {
      const v = mesh.indices[3 * t + k];
      if (remap[v] < 0) remap[v] = next++;
      kept.push(remap[v]);
    }
  }
  const positions = new Float32Array(next * 3);
  const colors = new Uint8Array(next * 3);
  const normals = mesh.normals ? new Float32Array(next * 3) : undefined;
  for (let v = 0; v < remap.length; v++) {
    const to = remap[v];
    if (to < 0) continue;
    positions.set(mesh.positions.subarray(3 * v, 3 * v + 3), 3 * to);
    colors.set(mesh.colors.subarray(3 * v, 3 * v + 3), 3 * to);
    normals?.set(mesh.normals!.subarray(3 * v, 3 * v + 3), 3 * to);
  }
  return { positions, colors, indices: Uint32Array.from(kept), ...(normals ? { normals } : {}) };
}

/** Area-weighted vertex normals (the sum of the adjacent faces' cross products, normalized). */
export function computeNormals(mesh: TriangleMesh): TriangleMesh {
  const p = mesh.positions;
  const sum = new Float64Array(p.length);
  for (let t = 0; t < mesh.indices.length; t += 3) {
    const [a, b, c] = [mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]];
    const e1 = [p[3 * b] - p[3 * a], p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2]];
    const e2 = [p[3 * c] - p[3 * a], p[3 * c + 1] - p[3 * a + 1], p[3 * c + 2] - p[3 * a + 2]];
    const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    for (const v of [a, b, c]) for (let d = 0; d < 3; d++) sum[3 * v + d] += n[d];
  }
  const normals = new Float32Array(p.length);
  for (let v = 0; v < p.length; v += 3) {
    const len = Math.hypot(sum[v], sum[v + 1], sum[v + 2]);
    if (len > 0) for (let d = 0; d < 3; d++) normals[v + d] = sum[v + d] / len;
    else normals[v + 1] = 1; // an isolated or zero-area vertex: any unit vector
  }
  return { ...mesh, normals };
}
