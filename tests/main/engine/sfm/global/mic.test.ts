import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonObject, readTransformsFrames } from '../../../../../main/engine/dataset/transforms.js';
import { rotationAngle, type NamedPose } from '../../../../../main/engine/sfm/pose-accuracy.js';
import { buildViewGraph } from '../../../../../main/engine/sfm/global/view-graph.js';
import { mat3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { reestimatePairs } from '../../../../../main/engine/sfm/verify/reestimate-pairs.js';
import { median } from '../../../../../shared/math/median.js';
import { poseKey } from '../../../../../main/cli/commands/bench-sfm-accuracy.js';
import { sharedDataset } from '../../../../helpers/shared-data.js';
import { edgeErrorDeg, formatEdgeReport, formatScore } from './edge-report.js';
import { mapAndAdjust, rightPairsOnly, type StageResult } from './mic-stages.js';
import { posedFrontEnd, posedFrontEndCached, type PosedFrontEndRequest } from './posed-front-end.js';

const mic = sharedDataset('nerf_synthetic_mic');
const request: PosedFrontEndRequest = { name: 'mic', dir: mic.dir, transforms: 'transforms_train.json', background: [255, 255, 255], pairs: 'exhaustive', log: console.log };
// The front end takes ~17 min on a fresh machine's llvmpipe (100 views, 4,950 pairs): more than
// the rest of the suite. It runs when its stages are cached (then minutes: re-estimation and four
// bundle adjustments on the CPU) or when asked for.
const runMic = mic.available && (process.env.ARGONAUT_SLOW_TESTS === '1' || posedFrontEndCached(request));
if (mic.available && !runMic) {
  console.warn(`skipping mic's global mapping: its front end (~17 min on llvmpipe) is not cached in the temporary folder; ARGONAUT_SLOW_TESTS=1 runs it`);
}

/**
 * Issue 16's accuracy check on mic: its 100 training views (800 x 800 RGBA) composited over white
 * (the microphone is dark metal on a black stand: over black its stand and grille edges vanish),
 * through our front end with the known camera (camera_angle_x); then the verified pairs as they
 * are and re-estimated (reestimate-pairs.ts: guided matching in the band of each pair's E, E refit,
 * inliers at 1 px), each through globalMapping and bundle adjustment (refineMapping, CPU); the
 * poses against transforms_train.json after a similarity alignment (pose-accuracy.ts). The goal
 * after bundle adjustment is < 0.5 deg and < 1%.
 *
 * Not met, and not by the mapper: most verified pairs are false ones (812 of the view graph's
 * 1,018 edges over 10 deg wrong; 577 of 776 after re-estimation). Their translation lies near the
 * optical axis (median 18 deg from it, against 82 deg for the right edges): an epipole on the
 * object, where the epipolar constraint holds for almost any match. Even mapping only the truly
 * right edges (error < 5 deg, chosen with the ground truth) leaves a third of the views unjoined
 * and 2.6 deg of error after bundle adjustment. So this checks what must hold (mapping completes,
 * close pairs are right, re-estimation leaves fewer wrong edges and sharper right ones, bundle
 * adjustment tightens the oracle's model) and prints the rest; docs/sfm.md, "Accuracy on data with
 * ground truth", has the numbers.
 */
describe('global mapping of mic (our front end on llvmpipe, transforms_train.json as the reference)', () => {
  it.runIf(runMic)('maps every view; re-estimation leaves fewer wrong edges and sharper right ones; the model is not right yet', async () => {
    const front = await posedFrontEnd(request);
    const referenceFile = path.join(mic.dir, 'transforms_train.json');
    const reference: NamedPose[] = (await readTransformsFrames(referenceFile, await readJsonObject(referenceFile))).map((v) => ({ name: poseKey(v.name), worldToCamera: v.camera.worldToCamera }));
    const truth = reference.map((v) => mat3([0, 1, 2, 4, 5, 6, 8, 9, 10].map((k) => v.worldToCamera[k])));
    const input = { views: front.views, keypoints: front.keypoints, camera: front.camera, reference, truth };
    const cameras = front.views.map(() => front.camera);
    const n = front.views.length;
    const configurations: Record<number, number> = {};
    for (const v of front.verified) if (v.geometry.inliers.length >= 15) configurations[v.geometry.configuration] = (configurations[v.geometry.configuration] ?? 0) + 1;
    console.log(`global-sfm mic: front end ${front.frontEndSeconds.toFixed(0)} s${front.fromCache ? ' (cached)' : ''}; pairs with >= 15 inliers by configuration ${JSON.stringify(configurations)}`);

    // the view graph's relative rotations against the truth, by how far apart the views are
    const graph = buildViewGraph({ imageCount: n, verified: front.verified, keypoints: front.keypoints, cameras, minInliers: 15 });
    const closeErrors: number[] = [];
    const wideErrors: number[] = [];
    for (const e of graph.edges) ((rotationAngle(truth[e.first], truth[e.second]) * 180) / Math.PI < 15 ? closeErrors : wideErrors).push(edgeErrorDeg(e.rotation, truth, e.first, e.second));
    console.log(`global-sfm mic: relative rotation error of pairs under 15 deg apart median ${median(closeErrors).toFixed(2)} deg (${closeErrors.length}), wider pairs median ${median(wideErrors).toFixed(2)} deg (${wideErrors.length})`);

    const started = performance.now();
    const reestimated = reestimatePairs(front.verified, front.keypoints.map((keypoints, i) => ({ keypoints, descriptors: front.descriptors[i] })), cameras);
    console.log(`global-sfm mic: re-estimation of ${front.verified.length} pairs ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const results: Record<string, StageResult> = {};
    for (const [name, verified] of [['as verified', front.verified], ['re-estimated', reestimated]] as const) {
      const r = (results[name] = await mapAndAdjust(input, verified));
      const oracle = await mapAndAdjust(input, rightPairsOnly(verified, r.edges));
      results[`${name}, oracle`] = oracle;
      console.log(
        `global-sfm mic, pairs ${name}: ${formatEdgeReport(r.edges)}\n` +
          `  mapped (${(r.mappingMs / 1000).toFixed(1)} s): ${formatScore(r.mappedScore, n)}; ${r.mapped.stats.edgesUsed} edges used, ${r.mapped.points.length} points, ${r.mapped.stats.meanReprojectionErrorPx.toFixed(2)} px\n` +
          `  bundle adjusted (${(r.bundleMs / 1000).toFixed(1)} s): ${formatScore(r.refinedScore, n)}; ${r.refined.points.length} points, ${r.refined.meanReprojectionErrorPx.toFixed(2)} px\n` +
          `  the ${r.edges.right} right edges only (oracle): mapped ${formatScore(oracle.mappedScore, n)}; bundle adjusted ${formatScore(oracle.refinedScore, n)}`,
      );
    }
    const [asVerified, reestimatedResult] = [results['as verified'], results['re-estimated']];
    expect(asVerified.mappedScore.registered).toBe(n);
    expect(closeErrors.length).toBeGreaterThan(50);
    expect(median(closeErrors)).toBeLessThan(5);
    // re-estimation: no right edge lost, a quarter of the wrong ones gone, the right ones sharper
    expect(reestimatedResult.edges.right).toBeGreaterThanOrEqual(asVerified.edges.right);
    expect(reestimatedResult.edges.wrong).toBeLessThan(0.8 * asVerified.edges.wrong);
    expect(reestimatedResult.edges.rightErrorDeg).toBeLessThan(0.85 * asVerified.edges.rightErrorDeg);
    // bundle adjustment tightens a model made of right edges
    const oracle = results['re-estimated, oracle'];
    expect(oracle.refinedScore.rotationDeg.median).toBeLessThan(0.75 * oracle.mappedScore.rotationDeg.median);
  }, 4 * 3_600_000);
});

