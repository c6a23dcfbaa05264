/**
 * Mesh extraction from trained splats: render depth and colour from every given view with the
 * training rasterizer, fuse them into a TSDF on the GPU, marching cubes on the GPU, then on the
 * host: weld, drop what no camera sees and small disconnected pieces, simplify to a triangle
 * budget, vertex normals. Input is splats + cameras only (MeshInput), so a CLI run, a project
 * file or the engine host can all hand them over.
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import type { GpuContext } from '../gpu/context.js';
import { removeOutsideCameras, removeSmallComponents, removeUnseen } from './cleanup.js';
import { gridForBounds, splatBounds, type Bounds, type VoxelGrid } from './grid.js';
import { MarchingCubes } from './marching-cubes.js';
import { computeNormals, triangleCount, vertexCount, weldSoup, type TriangleMesh } from './mesh.js';
import { simplifyMesh } from './simplify.js';
import { removeUnsupportedComponents, type SupportOptions } from './support.js';
import { TsdfVolume } from './tsdf.js';
import { ViewRenderer, type ResolvedDepthSource } from './view-render.js';
import { MeshVisibility } from './visibility.js';

export interface MeshInput {
  splats: SplatSet;
  /** The views to fuse (usually the training views): their cameras only, no images. */
  cameras: readonly PinholeCamera[];
  /** Trained with the geometry regularizers (--geometry): 'auto' depth then takes the median depth. */
  geometry?: boolean;
  /**
   * Per camera, the training image's own alpha (or mask) in [0, 1], camera.width x camera.height,
   * where the dataset has one: free-space votes where it says background (viewAlphaOf).
   */
  imageAlpha?: readonly (Float32Array | undefined)[];
}

/**
 * Which depth each view contributes: 'surface' (default: per splat the depth where the pixel's
 * ray enters its alpha-1/2 level set, or its highest density along the ray where its alpha stays
 * under 1/2, composited with the image's weights: ray-depth.ts), 'ray' (always the highest
 * density: flat splats land on their plane, fat ones on their centre), 'expected' (the
 * rasterizer's sum of w z over alpha: splat centres, in front of slanted surfaces by a fraction
 * of a footprint) or 'median' (the rasterizer's median depth output: the centre depth of the
 * splat where transmittance crosses 0.5, for models trained with --geometry).
 */
export type DepthSource = 'auto' | 'surface' | 'ray' | 'expected' | 'median';

/**
 * 'auto': the median depth for models trained with --geometry (flat splats on the surface: the
 * H200 bunny at 7k steps scores F 0.956 at tau 0.01 with it, 0.780 with 'surface'), else
 * 'expected' (the same bunny trained without --geometry: F 0.360 expected, 0.202 surface, 0.185
 * ray; ideal flat splats favour ray and surface instead, see tests/main/engine/mesh).
 */
export function resolveDepthSource(depth: DepthSource | undefined, geometry: boolean | undefined): ResolvedDepthSource {
  if (!depth || depth === 'auto') return geometry ? 'median' : 'expected';
  return depth;
}

export interface MeshOptions {
  /** Voxels along the bounds' longest axis. */
  resolution: number;
  /** Truncation of the signed distance, in voxels. */
  truncationVoxels: number;
  /** Simplify to this many triangles (0: keep all). */
  targetTriangles: number;
  /** Keep components with at least this fraction of the largest one's triangles. */
  minComponentFraction: number;
  depth?: DepthSource;
  /** Pixels with alpha below this see no surface (default 0.5). */
  alphaMin?: number;
  /** Background pixels mark the voxels on their rays as free space (default true). */
  carve?: boolean;
  /** Carve points that at least this many views saw as empty (0: no carve pass; docs/mesh.md). */
  carveVotes?: number;
  /** A free-space vote where the rendered alpha (or the image's) is below this (default 0.05). */
  carveAlpha?: number;
  /** A free-space vote where the seen surface lies more than this many truncations beyond the point (default 1). */
  carveDepthTruncations?: number;
  /**
   * Drop the triangles none of whose vertices this many views see (visibility.ts: not hidden
   * behind the surface the view shows); 0 or absent: no visibility pass.
   */
  minViews?: number;
  /** A vertex this many truncations behind the surface a view shows still counts as seen by it (default 0.5). */
  seenDepthTruncations?: number;
  /** Drop pieces far from the opaque splats (support.ts; minFraction 0 or absent: keep all). */
  support?: SupportOptions;
  /** Default: the splats' robust bounds (splatBounds). */
  bounds?: Bounds;
  /** Most grid points / cells one dispatch handles (default 2^22). */
  maxPerDispatch?: number;
  antialiased?: boolean;
  signal?: AbortSignal;
  onProgress?: (stage: 'fuse' | 'march' | 'visibility' | 'clean' | 'simplify', done: number, total: number) => void;
}

export interface MeshStats {
  grid: { dims: [number, number, number]; voxelSize: number; truncation: number; origin: [number, number, number] };
  views: number;
  /** The depth source used ('auto' resolved). */
  depth: ResolvedDepthSource;
  rawTriangles: number;
  weldedVertices: number;
  outsideCamerasRemoved: number;
  /** Triangles no vertex of which minViews views see (0 without the visibility pass). */
  unseenTrianglesRemoved: number;
  /** Pieces (and their triangles) dropped as far from the opaque splats. */
  unsupportedComponentsRemoved: number;
  unsupportedTrianglesRemoved: number;
  componentsRemoved: number;
  componentsKept: number;
  simplifyError: number;
  triangles: number;
  vertices: number;
  /** Seconds per stage. */
  timings: { fuse_s: number; march_s: number; visibility_s: number; clean_s: number; simplify_s: number; total_s: number };
}

export interface MeshResult {
  mesh: TriangleMesh;
  grid: VoxelGrid;
  stats: MeshStats;
}

export async function extractMesh(ctx: GpuContext, input: MeshInput, options: MeshOptions): Promise<MeshResult> {
  const started = performance.now();
  const { splats, cameras } = input;
  if (!cameras.length) throw new ArgonautError('invalid_argument', 'mesh extraction needs at least one camera view');
  if (!splats.count) throw new ArgonautError('invalid_argument', 'mesh extraction needs splats (the set is empty)');
  const progress = options.onProgress ?? (() => undefined);
  const checkCancel = () => {
    if (options.signal?.aborted) throw new ArgonautError('cancelled', 'mesh extraction cancelled');
  };
  const grid = gridForBounds(options.bounds ?? splatBounds(splats), options.resolution, options.truncationVoxels);
  const source = resolveDepthSource(options.depth, input.geometry);
  const depthMode = source === 'expected' ? 'expected' : 'direct';
  const depthStride = source === 'median' ? 4 : 1;
  const renderer = await ViewRenderer.create(ctx, splats, cameras, source, options.antialiased ?? false);
  let soup;
  let fusedAt: number;
  let marchedAt: number;
  let visibilityAt: number;
  let visibleAt: number;
  let seen: Uint32Array | undefined;
  let mesh: TriangleMesh;
  let outside: { mesh: TriangleMesh; removedTriangles: number };
  try {
    const volume = await TsdfVolume.create(ctx, grid, {
      depthMode,
      depthStride,
      alphaMin: options.alphaMin,
      carve: options.carve,
      carveAlpha: options.carveAlpha,
      carveDepthTruncations: options.carveDepthTruncations,
      maxPointsPerDispatch: options.maxPerDispatch,
    });
    try {
      await renderer.forEachView(
        cameras,
        () => volume.bindView(renderer.depthBuffer, renderer.image, renderer.width, renderer.height),
        async (binding, v) => {
          const fuse = ctx.commands('mesh.fuse');
          volume.encodeIntegrate(fuse, binding, cameras[v], input.imageAlpha?.[v]);
          await fuse.submit();
          progress('fuse', v + 1, cameras.length);
        },
        checkCancel,
      );
      const carve = ctx.commands('mesh.carve');
      await volume.encodeCarve(carve, options.carveVotes ?? 0);
      await carve.submit();
      await ctx.device.queue.onSubmittedWorkDone();
      ctx.assertNoErrors('TSDF fusion');
      fusedAt = performance.now();
      checkCancel();
      const mc = await MarchingCubes.create(ctx, { maxCellsPerDispatch: options.maxPerDispatch });
      soup = await mc.extract(volume, { onSlab: (done, total) => progress('march', done, total) });
    } finally {
      volume.destroy();
    }
    marchedAt = performance.now();
    mesh = weldSoup(soup);
    outside = removeOutsideCameras(mesh, cameras);
    visibilityAt = performance.now();
    const minViews = options.minViews ?? 0;
    if (minViews > 0 && vertexCount(outside.mesh) > 0) {
      const seenDepth = (options.seenDepthTruncations ?? 0.5) * grid.truncation;
      const visibility = await MeshVisibility.create(ctx, outside.mesh.positions, { depthMode, depthStride, alphaMin: options.alphaMin, seenDepth });
      try {
        await renderer.forEachView(
          cameras,
          () => visibility.bindView(renderer.depthBuffer, renderer.image),
          async (group, v) => {
            const count = ctx.commands('mesh.visibility');
            visibility.encodeView(count, group, cameras[v]);
            await count.submit();
            progress('visibility', v + 1, cameras.length);
          },
          checkCancel,
        );
        seen = await visibility.read();
        ctx.assertNoErrors('mesh visibility');
      } finally {
        visibility.destroy();
      }
    }
    visibleAt = performance.now();
  } finally {
    renderer.destroy();
  }
  progress('clean', 0, 1);
  const weldedVertices = vertexCount(mesh);
  const unseen = seen ? removeUnseen(outside.mesh, seen, options.minViews ?? 0) : { mesh: outside.mesh, removedTriangles: 0 };
  const unsupported = options.support ? removeUnsupportedComponents(unseen.mesh, splats, options.support) : { mesh: unseen.mesh, removedComponents: 0, removedTriangles: 0 };
  const components = removeSmallComponents(unsupported.mesh, options.minComponentFraction);
  mesh = components.mesh;
  const cleanedAt = performance.now();
  progress('simplify', 0, 1);
  const simplified = await simplifyMesh(mesh, options.targetTriangles);
  mesh = computeNormals(simplified.mesh);
  const done = performance.now();
  const s = (a: number, b: number) => (b - a) / 1000;
  return {
    mesh,
    grid,
    stats: {
      grid: { dims: grid.dims, voxelSize: grid.voxelSize, truncation: grid.truncation, origin: grid.origin },
      views: cameras.length,
      depth: source,
      rawTriangles: soup.triangles,
      weldedVertices,
      outsideCamerasRemoved: outside.removedTriangles,
      unseenTrianglesRemoved: unseen.removedTriangles,
      unsupportedComponentsRemoved: unsupported.removedComponents,
      unsupportedTrianglesRemoved: unsupported.removedTriangles,
      componentsRemoved: components.removedComponents,
      componentsKept: components.keptComponents,
      simplifyError: simplified.error,
      triangles: triangleCount(mesh),
      vertices: vertexCount(mesh),
      timings: { fuse_s: s(started, fusedAt), march_s: s(fusedAt, marchedAt), visibility_s: s(visibilityAt, visibleAt), clean_s: s(marchedAt, visibilityAt) + s(visibleAt, cleanedAt), simplify_s: s(cleanedAt, done), total_s: s(started, done) },
    },
  };
}
