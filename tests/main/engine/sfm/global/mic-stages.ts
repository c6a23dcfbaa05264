/**
 * mic.test.ts's stages on one list of verified pairs: the view graph against the truth
 * (edge-report.ts), globalMapping, then bundle adjustment (refineMapping with the CPU adjuster, a
 * SIMPLE_RADIAL camera from the known focal as bench sfm starts it), each scored after the
 * similarity alignment.
 */
import { bundleAdjustCpu } from '../../../../../main/engine/sfm/bundle/bundle-adjust-cpu.js';
import { globalMapping, type GlobalMappingResult } from '../../../../../main/engine/sfm/global/global-mapper.js';
import { refineMapping, type RefinedMapping } from '../../../../../main/engine/sfm/global/refine-mapping.js';
import { buildViewGraph } from '../../../../../main/engine/sfm/global/view-graph.js';
import type { NamedPose } from '../../../../../main/engine/sfm/pose-accuracy.js';
import type { Mat3 } from '../../../../../main/engine/sfm/verify/dense.js';
import type { PinholeIntrinsics } from '../../../../../main/engine/sfm/verify/verify-options.js';
import type { VerifiedPair } from '../../../../../main/engine/sfm/verify/verify-pairs.js';
import { edgeReport, mappingScore, type EdgeReport, type MappingScore } from './edge-report.js';

export interface StageInput {
  views: readonly { name: string }[];
  keypoints: readonly Float32Array[];
  camera: PinholeIntrinsics;
  reference: readonly NamedPose[];
  truth: readonly Mat3[];
}

export interface StageResult {
  edges: EdgeReport;
  mapped: GlobalMappingResult;
  mappedScore: MappingScore;
  refined: RefinedMapping;
  refinedScore: MappingScore;
  mappingMs: number;
  bundleMs: number;
}

export async function mapAndAdjust(input: StageInput, verified: readonly VerifiedPair[]): Promise<StageResult> {
  const imageCount = input.views.length;
  const cameras = input.views.map(() => input.camera);
  const graph = buildViewGraph({ imageCount, verified, keypoints: input.keypoints, cameras, minInliers: 15 });
  const edges = edgeReport(graph, input.truth);
  let started = performance.now();
  const mapped = globalMapping({ imageCount, verified, keypoints: input.keypoints, cameras });
  const mappingMs = performance.now() - started;
  started = performance.now();
  const c = input.camera;
  const refined = await refineMapping(
    { mapped, keypoints: input.keypoints, cameras: [{ model: 'SIMPLE_RADIAL', params: Float64Array.of(c.focalX, c.principalX, c.principalY, 0) }], imageCamera: new Uint32Array(imageCount) },
    bundleAdjustCpu,
  );
  const bundleMs = performance.now() - started;
  return {
    edges,
    mapped,
    mappedScore: mappingScore(mapped.poses, input.views, input.reference),
    refined,
    refinedScore: mappingScore(refined.poses, input.views, input.reference),
    mappingMs,
    bundleMs,
  };
}

/** The pairs whose edge the report found right (an oracle: the ground truth picks them). */
export function rightPairsOnly(verified: readonly VerifiedPair[], edges: EdgeReport): VerifiedPair[] {
  return verified.filter((v) => edges.rightKeys.has(`${Math.min(...v.pair)},${Math.max(...v.pair)}`));
}
