/**
 * The accuracy checks' measurements (mic.test.ts): a view graph's edges against ground-truth
 * rotations (right: < 5 deg off, wrong: > 10 deg, by configuration), and a mapping's poses against
 * the reference after the similarity alignment (pose-accuracy.ts).
 */
import { worldToCameraFromRotation } from '../../../../../main/engine/dataset/pose.js';
import type { ViewGraph } from '../../../../../main/engine/sfm/global/view-graph.js';
import type { CameraPose } from '../../../../../main/engine/sfm/global/triangulate.js';
import { poseAccuracy, rotationAngle, type NamedPose } from '../../../../../main/engine/sfm/pose-accuracy.js';
import { multiply3, transpose3, type Mat3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { poseKey } from '../../../../../main/cli/commands/bench-sfm-accuracy.js';
import { median } from '../../../../../shared/math/median.js';

export interface EdgeReport {
  edges: number;
  right: number;
  wrong: number;
  /** "first,second" of the right edges. */
  rightKeys: Set<string>;
  byConfiguration: Record<number, { right: number; wrong: number }>;
  inliersMedian: { right: number; wrong: number };
  /** Median rotation error of the right edges, degrees. */
  rightErrorDeg: number;
  /** Per edge, degrees (the graph's order). */
  errorsDeg: number[];
}

/** Degrees between an edge's relative rotation and the truth's R_second R_first^T. */
export function edgeErrorDeg(rotation: Mat3, truth: readonly Mat3[], first: number, second: number): number {
  return (rotationAngle(rotation, multiply3(truth[second], transpose3(truth[first]))) * 180) / Math.PI;
}

export function edgeReport(graph: ViewGraph, truth: readonly Mat3[]): EdgeReport {
  const rightKeys = new Set<string>();
  const byConfiguration: Record<number, { right: number; wrong: number }> = {};
  const inliers = { right: [] as number[], wrong: [] as number[] };
  const rightErrors: number[] = [];
  const errorsDeg = graph.edges.map((e) => edgeErrorDeg(e.rotation, truth, e.first, e.second));
  graph.edges.forEach((e, k) => {
    const row = (byConfiguration[e.configuration] ??= { right: 0, wrong: 0 });
    if (errorsDeg[k] < 5) {
      rightKeys.add(`${e.first},${e.second}`);
      row.right++;
      inliers.right.push(e.inlierCount);
      rightErrors.push(errorsDeg[k]);
    } else if (errorsDeg[k] > 10) {
      row.wrong++;
      inliers.wrong.push(e.inlierCount);
    }
  });
  return {
    edges: graph.edges.length,
    right: rightKeys.size,
    wrong: inliers.wrong.length,
    rightKeys,
    byConfiguration,
    inliersMedian: { right: median(inliers.right), wrong: median(inliers.wrong) },
    rightErrorDeg: median(rightErrors),
    errorsDeg,
  };
}

export function formatEdgeReport(r: EdgeReport): string {
  return (
    `${r.edges} edges, ${r.right} right (< 5 deg, median ${r.rightErrorDeg.toFixed(2)} deg), ${r.wrong} wrong (> 10 deg); by configuration ${JSON.stringify(r.byConfiguration)}; ` +
    `inliers median right ${r.inliersMedian.right} wrong ${r.inliersMedian.wrong}`
  );
}

/** The registered images' poses as pose-accuracy.ts takes them (world to camera, row-major 4x4). */
export function namedPoses(poses: readonly (CameraPose | undefined)[], views: readonly { name: string }[]): NamedPose[] {
  const named: NamedPose[] = [];
  poses.forEach((pose, i) => {
    if (!pose) return;
    named.push({ name: poseKey(views[i].name), worldToCamera: worldToCameraFromRotation(pose.rotation, pose.translation) });
  });
  return named;
}

export interface MappingScore {
  registered: number;
  rotationDeg: { median: number; max: number };
  /** Fractions of the scene's size. */
  centre: { median: number; max: number };
}

export function mappingScore(poses: readonly (CameraPose | undefined)[], views: readonly { name: string }[], reference: readonly NamedPose[]): MappingScore {
  const estimated = namedPoses(poses, views);
  const accuracy = poseAccuracy(estimated, reference);
  return { registered: estimated.length, rotationDeg: accuracy.rotationDeg, centre: accuracy.centre };
}

export function formatScore(s: MappingScore, of: number): string {
  return `${s.registered}/${of} registered, rotation error median ${s.rotationDeg.median.toFixed(2)} max ${s.rotationDeg.max.toFixed(2)} deg, centre error median ${(100 * s.centre.median).toFixed(2)}% max ${(100 * s.centre.max).toFixed(2)}%`;
}
