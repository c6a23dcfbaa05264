/**
 * Simplification to a triangle budget with meshoptimizer (quadric edge collapse, WASM). Vertex
 * colours are passed as attributes so collapses across colour edges cost more; the error limit is
 * left open so the budget decides.
 */
import { MeshoptSimplifier } from 'meshoptimizer';
import { compactMesh, triangleCount, type TriangleMesh } from './mesh.js';

export interface SimplifyResult {
  mesh: TriangleMesh;
  /** Relative geometric error meshoptimizer reports (a fraction of the mesh's extent). */
  error: number;
}

/** Weight of each colour channel (0..1) against the relative position error. */
const COLOR_WEIGHT = 0.5;

export async function simplifyMesh(mesh: TriangleMesh, targetTriangles: number): Promise<SimplifyResult> {
  if (targetTriangles <= 0 || triangleCount(mesh) <= targetTriangles) return { mesh, error: 0 };
  await MeshoptSimplifier.ready;
  const colors = new Float32Array(mesh.colors.length);
  for (let i = 0; i < colors.length; i++) colors[i] = mesh.colors[i] / 255;
  const [indices, error] = MeshoptSimplifier.simplifyWithAttributes(
    mesh.indices,
    mesh.positions,
    3,
    colors,
    3,
    [COLOR_WEIGHT, COLOR_WEIGHT, COLOR_WEIGHT],
    null,
    targetTriangles * 3,
    1,
  );
  return { mesh: compactMesh({ positions: mesh.positions, colors: mesh.colors, indices }), error };
}
