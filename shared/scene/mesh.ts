/**
 * A triangle mesh as every part of the product sees it (extraction, export, a viewer preview):
 * indexed, per-vertex colour and optional normal, in the world frame of the splats.
 */
export interface TriangleMesh {
  /** xyz per vertex. */
  positions: Float32Array;
  /** sRGB rgb8 per vertex. */
  colors: Uint8Array;
  /** Three vertex indices per triangle, counter-clockwise seen from outside. */
  indices: Uint32Array;
  /** Unit normal per vertex. */
  normals?: Float32Array;
}
