/**
 * The registry's `mesh.*` parameters as extraction options: one mapping for the CLI's `mesh` and
 * `bench mesh` and the engine host's mesh service.
 */
import { paramsWithPrefix, resolveParams, type ParamsWithPrefix, type ParamValue, type ParamValuesOf } from '../../../shared/params/index.js';
import type { MeshOptions } from './extract.js';

export type MeshParamValues = ParamValuesOf<ParamsWithPrefix<'mesh.'>>;

/** Every `mesh.*` value: explicit > environment (when given) > default. */
export function resolveMeshValues(explicit: Readonly<Record<string, ParamValue>>, env?: Readonly<Record<string, string | undefined>>): MeshParamValues {
  return resolveParams(paramsWithPrefix('mesh.'), explicit, { env });
}

export function meshOptionsFromParams(p: Readonly<MeshParamValues>): MeshOptions {
  return {
    resolution: p['mesh.resolution'],
    truncationVoxels: p['mesh.truncation'],
    targetTriangles: p['mesh.targetTriangles'],
    minComponentFraction: p['mesh.minComponent'],
    depth: p['mesh.depth'],
    carveVotes: p['mesh.carveVotes'],
    carveDepthTruncations: p['mesh.carveDepth'],
    minViews: p['mesh.minViews'],
    seenDepthTruncations: p['mesh.seenDepth'],
    support: { minFraction: p['mesh.minSupport'], radiusScales: p['mesh.supportRadius'], minOpacity: p['mesh.supportOpacity'] },
  };
}
