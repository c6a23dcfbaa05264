import type { MeshResult } from '../engine/mesh/extract.js';
import { resolveMeshValues, type MeshParamValues } from '../engine/mesh/params.js';
import type { CommandContext } from './command.js';

// What `mesh` and `bench mesh` both read (the registry's mesh.* values, mapped to options by
// engine/mesh/params.ts) and report (the extraction's summary), in a module of its own so neither command imports the other.

/** The registry's `mesh.*` values, resolved (explicit > environment > default). */
export function resolveMeshParams(context: Pick<CommandContext, 'params'>): MeshParamValues {
  return resolveMeshValues(context.params, process.env);
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
    unsupported_components_removed: s.unsupportedComponentsRemoved,
    unsupported_triangles_removed: s.unsupportedTrianglesRemoved,
    outside_cameras_removed: s.outsideCamerasRemoved,
    unseen_triangles_removed: s.unseenTrianglesRemoved,
    simplify_error: s.simplifyError,
    mesh_s: s.timings.total_s,
    timings: s.timings,
  };
}
