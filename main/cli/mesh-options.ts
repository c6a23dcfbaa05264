import { allParams, resolveParams, type ParamValue } from '../../shared/params/index.js';
import type { DepthSource, MeshOptions, MeshResult } from '../engine/mesh/extract.js';
import type { CommandContext } from './command.js';

// What `mesh` and `bench mesh` both read (the registry's mesh.* values) and report (the
// extraction's summary), in a module of its own so neither command imports the other.

/** The registry's `mesh.*` values, resolved (explicit > environment > default). */
export function resolveMeshParams(context: Pick<CommandContext, 'params'>): Record<string, ParamValue> {
  return resolveParams(allParams().filter((p) => p.key.startsWith('mesh.')), context.params, { env: process.env });
}

export function meshOptionsFromParams(p: Readonly<Record<string, ParamValue>>): MeshOptions {
  return {
    resolution: p['mesh.resolution'] as number,
    truncationVoxels: p['mesh.truncation'] as number,
    targetTriangles: p['mesh.targetTriangles'] as number,
    minComponentFraction: p['mesh.minComponent'] as number,
    depth: p['mesh.depth'] as DepthSource,
  };
}

/** The extraction's statistics as the JSON result names them. */
export function meshSummary(result: MeshResult) {
  const s = result.stats;
  return {
    triangles: s.triangles,
    vertices: s.vertices,
    raw_triangles: s.rawTriangles,
    grid: s.grid.dims,
    voxel_size: s.grid.voxelSize,
    truncation: s.grid.truncation,
    views: s.views,
    depth: s.depth,
    components_removed: s.componentsRemoved,
    outside_cameras_removed: s.outsideCamerasRemoved,
    simplify_error: s.simplifyError,
    mesh_s: s.timings.total_s,
    timings: s.timings,
  };
}
