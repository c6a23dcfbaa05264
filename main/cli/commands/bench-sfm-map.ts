/**
 * `bench sfm`'s stages after verification: the cameras the mapper takes (capture's camera groups:
 * EXIF or COLMAP's guess, or one known focal), 'map' (globalMapping: per-stage ms from its stats,
 * registered / total, points, mean reprojection error), 'bundle' (refineMapping with the device's
 * solver, as capture refines: one SIMPLE_RADIAL camera per camera group, focal and k refined) and,
 * with --reference, the recovered poses' accuracy before and after it (bench sfm-accuracy's reading
 * and sfm/pose-accuracy.ts's math).
 */
import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';
import { cameraGroupKey } from '../../engine/capture/camera-groups.js';
import { readExifCamera } from '../../engine/capture/exif-focal.js';
import { worldToCameraFromRotation } from '../../engine/dataset/pose.js';
import { DEFAULT_FOCAL_LENGTH_FACTOR } from '../../engine/sfm/colmap-database.js';
import type { GpuContext } from '../../engine/gpu/context.js';
import { bundleSolverFor } from '../../engine/sfm/bundle/solver-for.js';
import { globalMapping, type GlobalMappingResult } from '../../engine/sfm/global/global-mapper.js';
import { refineMapping } from '../../engine/sfm/global/refine-mapping.js';
import type { CameraPose } from '../../engine/sfm/global/triangulate.js';
import { poseAccuracy, type NamedPose } from '../../engine/sfm/pose-accuracy.js';
import type { PinholeIntrinsics } from '../../engine/sfm/verify/verify-options.js';
import type { VerifiedPair } from '../../engine/sfm/verify/verify-pairs.js';
import { poseKey } from './bench-sfm-accuracy.js';

export interface BenchCameras {
  /** Per image, one object per camera (global-mapper.ts's contract). */
  mapper: PinholeIntrinsics[];
  /** Per image: the camera where its focal is known (EXIF or --focal), for E in verification; else undefined (F and H). */
  verification: (PinholeIntrinsics | undefined)[];
  /** How many distinct cameras, and where their focal came from. */
  count: number;
  focalFrom: 'focal option' | 'EXIF or guess' | 'guess';
}

/**
 * The capture's cameras: with `focal` every image has that focal (a known camera: E in
 * verification); else a clip is one camera per frame size with COLMAP's guess (1.2 x the long
 * side), and photos share one per size and EXIF group (camera-groups.ts), focal from EXIF where
 * present (then also E), else the guess.
 */
export async function benchCameras(kind: 'photos' | 'video', files: readonly string[], sizes: readonly { width: number; height: number }[], focal: number | undefined): Promise<BenchCameras> {
  const byKey = new Map<string, { camera: PinholeIntrinsics; known: boolean }>();
  const mapper: PinholeIntrinsics[] = [];
  const verification: (PinholeIntrinsics | undefined)[] = [];
  for (const [i, file] of files.entries()) {
    const { width, height } = sizes[i];
    const exif = kind === 'photos' && focal === undefined ? await readExifCamera(file, width, height) : undefined;
    const key = cameraGroupKey({ width, height, exif });
    let entry = byKey.get(key);
    if (!entry) {
      const known = focal ?? exif?.focal?.focal;
      const f = known ?? DEFAULT_FOCAL_LENGTH_FACTOR * Math.max(width, height);
      entry = { camera: { focalX: f, focalY: f, principalX: width / 2, principalY: height / 2 }, known: known !== undefined };
      byKey.set(key, entry);
    }
    mapper.push(entry.camera);
    verification.push(entry.known ? entry.camera : undefined);
  }
  return { mapper, verification, count: byKey.size, focalFrom: focal !== undefined ? 'focal option' : kind === 'photos' ? 'EXIF or guess' : 'guess' };
}

export interface MapStage {
  json: Record<string, unknown>;
  human: string[];
  result?: GlobalMappingResult;
}

/** globalMapping on the verified pairs; a mapping failure is reported as the stage's outcome, not thrown (the front end's numbers stand). */
export function mapStage(verified: readonly VerifiedPair[], keypoints: readonly Float32Array[], cameras: BenchCameras): MapStage {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  let result: GlobalMappingResult;
  try {
    result = globalMapping({ imageCount: keypoints.length, verified, keypoints, cameras: cameras.mapper });
  } catch (error) {
    const message = (error as Error).message;
    return { json: { failed: message }, human: [`map      failed: ${message}`] };
  }
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - wall;
  const cpuMs = (used.user + used.system) / 1000;
  const s = result.stats;
  const registered = result.poses.filter(Boolean).length;
  const droppedByReason: Record<string, number> = {};
  for (const d of result.droppedEdges) {
    const reason = d.reason.replace(/\d+(\.\d+)?/g, 'N');
    droppedByReason[reason] = (droppedByReason[reason] ?? 0) + 1;
  }
  const json = {
    wall_ms: wallMs,
    cpu_ms: cpuMs,
    stage_ms: s.stageMs,
    positioning_iterations: s.positioningIterations,
    registered,
    images: keypoints.length,
    points: result.points.length,
    tracks: s.tracks,
    mean_reprojection_error_px: s.meanReprojectionErrorPx,
    cameras: cameras.count,
    focal_from: cameras.focalFrom,
    edges_in_component: s.edgesInComponent,
    edges_used: s.edgesUsed,
    rotation_residual_deg: s.rotationResidualDeg,
    rejected_tracks: s.rejectedTracks,
    dropped_edges_by_reason: droppedByReason,
    unregistered: result.unregistered,
  };
  const stages = Object.entries(s.stageMs).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
  return {
    json,
    human: [`map      ${wallMs.toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU (${stages}); ${registered}/${keypoints.length} registered, ${result.points.length} points, ${s.meanReprojectionErrorPx.toFixed(3)} px mean reprojection error (${cameras.count} camera(s), focal from ${cameras.focalFrom})`],
    result,
  };
}

export interface BundleStage {
  json: Record<string, unknown>;
  human: string[];
  /** The refined poses (undefined when there was nothing to refine or it failed). */
  poses?: (CameraPose | undefined)[];
}

/** refineMapping on the mapped model; a failure is the stage's outcome, as for 'map'. */
export async function bundleStage(ctx: GpuContext, mapped: GlobalMappingResult | undefined, keypoints: readonly Float32Array[], cameras: BenchCameras): Promise<BundleStage> {
  if (!mapped) return { json: { skipped: 'no mapped model' }, human: ['bundle   skipped: no mapped model'] };
  const distinct = [...new Set(cameras.mapper)];
  const imageCamera = cameras.mapper.map((c) => distinct.indexOf(c));
  const start = distinct.map((c) => ({ model: 'SIMPLE_RADIAL' as const, params: Float64Array.of(c.focalX, c.principalX, c.principalY, 0) }));
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const solver = await bundleSolverFor(ctx);
  let refined;
  try {
    refined = await refineMapping({ mapped, keypoints, cameras: start, imageCamera }, solver.adjust);
  } catch (error) {
    const message = (error as Error).message;
    return { json: { failed: message, solver: solver.name }, human: [`bundle   failed: ${message}`] };
  } finally {
    solver.destroy();
  }
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - wall;
  const cpuMs = (used.user + used.system) / 1000;
  const registered = refined.poses.filter(Boolean).length;
  const iterations = refined.rounds.reduce((sum, r) => sum + r.iterations, 0);
  const json = {
    wall_ms: wallMs,
    cpu_ms: cpuMs,
    solver: solver.name,
    registered,
    points: refined.points.length,
    mean_reprojection_error_px: { before: refined.initialMeanReprojectionErrorPx, after: refined.meanReprojectionErrorPx },
    cameras: start.map((c, k) => ({ focal_before: c.params[0], focal_after: refined.cameras[k].params[0], k_after: refined.cameras[k].params[3] })),
    rounds: refined.rounds,
    ...(refined.intrinsicsHeld ? { intrinsics_held: refined.intrinsicsHeld } : {}),
    ...(refined.stopped ? { stopped: refined.stopped } : {}),
    unregistered: refined.unregistered,
  };
  const focals = json.cameras.map((c) => `${c.focal_before.toFixed(1)} -> ${c.focal_after.toFixed(1)} px`).join(', ');
  return {
    json,
    human: [`bundle   ${wallMs.toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU (${solver.name} solver, ${refined.rounds.length} rounds, ${iterations} LM iterations); ${registered} registered, ${refined.points.length} points, ${refined.initialMeanReprojectionErrorPx.toFixed(3)} -> ${refined.meanReprojectionErrorPx.toFixed(3)} px; focal ${focals}`],
    poses: refined.poses,
  };
}

/** Recovered poses against --reference (pairing by file name without folder and extension). */
export function mappedAccuracy(poses: readonly (CameraPose | undefined)[], files: readonly string[], reference: readonly NamedPose[], referenceFile: string): { json: Record<string, unknown>; human: string[] } {
  const estimated: NamedPose[] = [];
  poses.forEach((pose, i) => {
    if (!pose) return;
    estimated.push({ name: poseKey(path.basename(files[i])), worldToCamera: worldToCameraFromRotation(pose.rotation, pose.translation) });
  });
  let accuracy;
  try {
    accuracy = poseAccuracy(estimated, reference);
  } catch (error) {
    throw badInput(referenceFile, `${(error as Error).message} (against the mapped poses)`);
  }
  const json = {
    reference: referenceFile,
    paired: accuracy.paired,
    missing: accuracy.missing.length,
    rotation_deg: accuracy.rotationDeg,
    centre_error_of_scene: accuracy.centre,
    scene_size: accuracy.sceneSize,
    cameras: accuracy.cameras,
  };
  return {
    json,
    human: [`accuracy ${accuracy.paired} paired with ${path.basename(referenceFile)}: rotation error median ${accuracy.rotationDeg.median.toFixed(3)} deg (max ${accuracy.rotationDeg.max.toFixed(3)}), centre error median ${(100 * accuracy.centre.median).toFixed(2)}% of the scene (max ${(100 * accuracy.centre.max).toFixed(2)}%)`],
  };
}
