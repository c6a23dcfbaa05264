/**
 * Host-side clean-up of an extracted mesh: small disconnected pieces (floaters fused from stray
 * splats), geometry outside every training camera's frustum, and surfaces no view sees (hidden
 * behind what every view shows: removeUnseen). All keep whole triangles and drop the vertices
 * nobody uses any more.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { compactMesh, triangleCount, vertexCount, type TriangleMesh } from './mesh.js';

/** Connected components over shared vertices: the component of each triangle and each component's triangle count. */
export function triangleComponents(mesh: TriangleMesh): { component: Int32Array; sizes: number[] } {
  const parent = new Int32Array(vertexCount(mesh));
  for (let v = 0; v < parent.length; v++) parent[v] = v;
  const find = (v: number) => {
    while (parent[v] !== v) {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
    return v;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const triangles = triangleCount(mesh);
  for (let t = 0; t < triangles; t++) {
    union(mesh.indices[3 * t], mesh.indices[3 * t + 1]);
    union(mesh.indices[3 * t], mesh.indices[3 * t + 2]);
  }
  const label = new Map<number, number>();
  const component = new Int32Array(triangles);
  const sizes: number[] = [];
  for (let t = 0; t < triangles; t++) {
    const root = find(mesh.indices[3 * t]);
    let id = label.get(root);
    if (id === undefined) {
      id = sizes.length;
      label.set(root, id);
      sizes.push(0);
    }
    component[t] = id;
    sizes[id]++;
  }
  return { component, sizes };
}

/**
 * Keeps the components with at least `minFraction` of the largest one's triangles (0: keep all;
 * 1: only the largest, and its ties).
 */
export function removeSmallComponents(mesh: TriangleMesh, minFraction: number): { mesh: TriangleMesh; removedComponents: number; keptComponents: number } {
  const { component, sizes } = triangleComponents(mesh);
  if (!sizes.length) return { mesh, removedComponents: 0, keptComponents: 0 };
  const largest = Math.max(...sizes);
  const keep = sizes.map((s) => s >= minFraction * largest);
  const kept = keep.filter(Boolean).length;
  return { mesh: compactMesh(mesh, (t) => keep[component[t]]), removedComponents: sizes.length - kept, keptComponents: kept };
}

/** Whether a world point lies inside a camera's view frustum (in front of `near`, inside the image). */
export function inFrustum(camera: PinholeCamera, x: number, y: number, z: number, near = 0.01): boolean {
  const m = camera.worldToCamera;
  const cz = m[8] * x + m[9] * y + m[10] * z + m[11];
  if (!(cz > near)) return false;
  const u = (camera.fx * (m[0] * x + m[1] * y + m[2] * z + m[3])) / cz + camera.cx;
  const v = (camera.fy * (m[4] * x + m[5] * y + m[6] * z + m[7])) / cz + camera.cy;
  return u >= 0 && v >= 0 && u < camera.width && v < camera.height;
}

/** Drops triangles with a vertex that no camera sees (in no view frustum). */
export function removeOutsideCameras(mesh: TriangleMesh, cameras: readonly PinholeCamera[]): { mesh: TriangleMesh; removedTriangles: number } {
  const seen = new Uint8Array(vertexCount(mesh));
  const p = mesh.positions;
  for (let v = 0; v < seen.length; v++) {
    for (const camera of cameras) {
      if (inFrustum(camera, p[3 * v], p[3 * v + 1], p[3 * v + 2])) {
        seen[v] = 1;
        break;
      }
    }
  }
  const keep = (t: number) => seen[mesh.indices[3 * t]] === 1 && seen[mesh.indices[3 * t + 1]] === 1 && seen[mesh.indices[3 * t + 2]] === 1;
  const out = compactMesh(mesh, keep);
  return { mesh: out, removedTriangles: triangleCount(mesh) - triangleCount(out) };
}

/**
 * Drops the triangles none of whose vertices at least `minViews` views see (`seen`: per vertex,
 * the views that see it; visibility.ts): a surface no view observed. A triangle with one seen
 * vertex stays, so the border of an observed surface keeps its last row.
 */
export function removeUnseen(mesh: TriangleMesh, seen: Uint32Array, minViews: number): { mesh: TriangleMesh; removedTriangles: number } {
  if (seen.length !== vertexCount(mesh)) throw new Error(`removeUnseen: ${seen.length} counts for ${vertexCount(mesh)} vertices`);
  if (!(minViews > 0)) return { mesh, removedTriangles: 0 };
  const i = mesh.indices;
  const keep = (t: number) => seen[i[3 * t]] >= minViews || seen[i[3 * t + 1]] >= minViews || seen[i[3 * t + 2]] >= minViews;
  const out = compactMesh(mesh, keep);
  return { mesh: out, removedTriangles: triangleCount(mesh) - triangleCount(out) };
}
