import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { worldToCameraFromRotation } from '../../../../../main/engine/dataset/pose.js';
import { readJsonObject, readTransformsFrames } from '../../../../../main/engine/dataset/transforms.js';
import { globalMapping } from '../../../../../main/engine/sfm/global/global-mapper.js';
import { poseAccuracy, rotationAngle, type NamedPose } from '../../../../../main/engine/sfm/pose-accuracy.js';
import { buildViewGraph } from '../../../../../main/engine/sfm/global/view-graph.js';
import type { CameraPose } from '../../../../../main/engine/sfm/global/triangulate.js';
import { mat3, multiply3, transpose3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { median } from '../../../../../shared/math/median.js';
import { poseKey } from '../../../../../main/cli/commands/bench-sfm-accuracy.js';
import { sharedDataset } from '../../../../helpers/shared-data.js';
import { posedFrontEnd, posedFrontEndCached, type PosedFrontEndRequest } from './posed-front-end.js';

const mic = sharedDataset('nerf_synthetic_mic');
const request: PosedFrontEndRequest = { name: 'mic', dir: mic.dir, transforms: 'transforms_train.json', background: [255, 255, 255], pairs: 'exhaustive', log: console.log };
// The front end takes ~17 min on a fresh machine's llvmpipe (100 views, 4,950 pairs): more than
// the rest of the suite. It runs when its stages are cached (then seconds) or when asked for.
const runMic = mic.available && (process.env.ARGONAUT_SLOW_TESTS === '1' || posedFrontEndCached(request));
if (mic.available && !runMic) {
  console.warn(`skipping mic's global mapping: its front end (~17 min on llvmpipe) is not cached in the temporary folder; ARGONAUT_SLOW_TESTS=1 runs it`);
}

/**
 * Issue 16's accuracy check on mic: its 100 training views (800 x 800 RGBA) composited over white
 * (the microphone is dark metal on a black stand: over black its stand and grille edges vanish),
 * through our front end with the known camera (camera_angle_x), then globalMapping; the recovered
 * poses against transforms_train.json after a similarity alignment (pose-accuracy.ts, bench
 * sfm-accuracy's math). The goal after bundle adjustment is < 0.5 deg and < 1%.
 *
 * Not met, and not by the mapper: most verified pairs are false ones (812 of the view graph's
 * 1,018 edges over 10 deg wrong). They have few inliers (median 17, against 54 for the right
 * edges), most of those miss by more than a pixel under the edge's own pose, and nearly every
 * UNCALIBRATED pair (E explains under 95% of F's inliers with the exact camera) is among them.
 * Even mapping only the truly right edges (error < 5 deg, chosen with the ground truth) leaves a
 * third of the views unjoined and 5 deg of error: the front end finds too few right pairs, too
 * noisily. So this checks what must hold (mapping completes, close pairs are right), prints the
 * accuracy, the right and wrong edges by configuration and inliers, and the oracle's mapping;
 * docs/sfm.md, "Accuracy on data with ground truth", has the numbers.
 */
/** The registered images' poses as pose-accuracy.ts takes them (world to camera, row-major 4x4). */
function namedPoses(poses: readonly (CameraPose | undefined)[], views: readonly { name: string }[]): NamedPose[] {
  const named: NamedPose[] = [];
  poses.forEach((pose, i) => {
    if (!pose) return;
    named.push({ name: poseKey(views[i].name), worldToCamera: worldToCameraFromRotation(pose.rotation, pose.translation) });
  });
  return named;
}

describe('global mapping of mic (our front end on llvmpipe, transforms_train.json as the reference)', () => {
  it.runIf(runMic)('maps every view; the close pairs are right, the wider ones (and so the model) are not yet', async () => {
    const front = await posedFrontEnd(request);
    const started = performance.now();
    const result = globalMapping({ imageCount: front.views.length, verified: front.verified, keypoints: front.keypoints, cameras: front.views.map(() => front.camera) });
    const ms = performance.now() - started;
    const referenceFile = path.join(mic.dir, 'transforms_train.json');
    const reference: NamedPose[] = (await readTransformsFrames(referenceFile, await readJsonObject(referenceFile))).map((v) => ({ name: poseKey(v.name), worldToCamera: v.camera.worldToCamera }));
    const estimated = namedPoses(result.poses, front.views);
    const accuracy = poseAccuracy(estimated, reference);
    const configurations: Record<number, number> = {};
    for (const v of front.verified) if (v.geometry.inliers.length >= 15) configurations[v.geometry.configuration] = (configurations[v.geometry.configuration] ?? 0) + 1;
    const s = result.stats;
    console.log(
      `global-sfm mic: front end ${front.frontEndSeconds.toFixed(0)} s${front.fromCache ? ' (cached)' : ''}; ${estimated.length}/${front.views.length} registered; ` +
        `pairs with >= 15 inliers by configuration ${JSON.stringify(configurations)}; ${s.edgesInComponent} edges in the component, ${s.edgesUsed} used; ` +
        `rotation error median ${accuracy.rotationDeg.median.toFixed(3)} max ${accuracy.rotationDeg.max.toFixed(3)} deg, ` +
        `centre error median ${(100 * accuracy.centre.median).toFixed(2)}% max ${(100 * accuracy.centre.max).toFixed(2)}%; ` +
        `${result.points.length} points of ${s.tracks} tracks, ${s.meanReprojectionErrorPx.toFixed(3)} px; mapping ${ms.toFixed(0)} ms ` +
        `(${Object.entries(s.stageMs).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}); unregistered ${JSON.stringify(result.unregistered.slice(0, 10))}`,
    );
    // the view graph's relative rotations against the truth, by how far apart the views are
    const truth = reference.map((v) => mat3([0, 1, 2, 4, 5, 6, 8, 9, 10].map((k) => v.worldToCamera[k])));
    const graph = buildViewGraph({ imageCount: front.views.length, verified: front.verified, keypoints: front.keypoints, cameras: front.views.map(() => front.camera), minInliers: 15 });
    const closeErrors: number[] = [];
    const wideErrors: number[] = [];
    for (const e of graph.edges) {
      const error = (rotationAngle(e.rotation, multiply3(truth[e.second], transpose3(truth[e.first]))) * 180) / Math.PI;
      ((rotationAngle(truth[e.first], truth[e.second]) * 180) / Math.PI < 15 ? closeErrors : wideErrors).push(error);
    }
    console.log(
      `global-sfm mic: view graph ${graph.edges.length} edges; relative rotation error of pairs under 15 deg apart median ${median(closeErrors).toFixed(2)} deg (${closeErrors.length}), ` +
        `wider pairs median ${median(wideErrors).toFixed(2)} deg (${wideErrors.length}); edges over 10 deg wrong ${[...closeErrors, ...wideErrors].filter((x) => x > 10).length}`,
    );
    // right (< 5 deg) and wrong (> 10 deg) edges by configuration and inliers, and what mapping
    // only the right ones (an oracle: the ground truth picks them) gives
    const right = new Set<string>();
    const byConfiguration: Record<number, { right: number; wrong: number }> = {};
    const inliers = { right: [] as number[], wrong: [] as number[] };
    for (const e of graph.edges) {
      const error = (rotationAngle(e.rotation, multiply3(truth[e.second], transpose3(truth[e.first]))) * 180) / Math.PI;
      const row = (byConfiguration[e.configuration] ??= { right: 0, wrong: 0 });
      if (error < 5) {
        right.add(`${e.first},${e.second}`);
        row.right++;
        inliers.right.push(e.inlierCount);
      } else if (error > 10) {
        row.wrong++;
        inliers.wrong.push(e.inlierCount);
      }
    }
    const oracleVerified = front.verified.filter((v) => right.has(`${Math.min(...v.pair)},${Math.max(...v.pair)}`));
    const oracle = globalMapping({ imageCount: front.views.length, verified: oracleVerified, keypoints: front.keypoints, cameras: front.views.map(() => front.camera) });
    const oracleEstimated = namedPoses(oracle.poses, front.views);
    const oracleAccuracy = poseAccuracy(oracleEstimated, reference);
    console.log(
      `global-sfm mic: right / wrong edges by configuration ${JSON.stringify(byConfiguration)}; inliers median right ${median(inliers.right)} wrong ${median(inliers.wrong)}; ` +
        `mapping the ${right.size} right edges only: ${oracleEstimated.length}/${front.views.length} registered, rotation error median ${oracleAccuracy.rotationDeg.median.toFixed(2)} deg, ` +
        `centre error median ${(100 * oracleAccuracy.centre.median).toFixed(2)}%`,
    );
    expect(estimated.length).toBe(front.views.length);
    expect(closeErrors.length).toBeGreaterThan(50);
    expect(median(closeErrors)).toBeLessThan(5);
  }, 4 * 3_600_000);
});
