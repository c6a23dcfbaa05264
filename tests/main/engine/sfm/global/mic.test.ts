import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonObject, readTransformsFrames } from '../../../../../main/engine/dataset/transforms.js';
import { globalMapping } from '../../../../../main/engine/sfm/global/global-mapper.js';
import { poseAccuracy, type NamedPose } from '../../../../../main/engine/sfm/pose-accuracy.js';
import { poseKey } from '../../../../../main/cli/commands/bench-sfm-accuracy.js';
import { sharedDataset } from '../../../../helpers/shared-data.js';
import { posedFrontEnd } from './posed-front-end.js';

const mic = sharedDataset('nerf_synthetic_mic');

/**
 * Issue 16's accuracy check on mic: its 100 training views (800 x 800 RGBA) composited over white
 * (the microphone is dark metal on a black stand: over black its stand and grille edges vanish),
 * through our front end with the known camera (camera_angle_x), then globalMapping; the recovered
 * poses against transforms_train.json after a similarity alignment (pose-accuracy.ts, bench
 * sfm-accuracy's math). The goal after bundle adjustment is < 0.5 deg and < 1%; the bounds here
 * are what mapping alone reaches (docs/sfm.md, "Accuracy on data with ground truth").
 */
describe('global mapping of mic (our front end on llvmpipe, transforms_train.json as the reference)', () => {
  it.runIf(mic.available)('registers the views near their true poses', async () => {
    const front = await posedFrontEnd({ name: 'mic', dir: mic.dir, transforms: 'transforms_train.json', background: [255, 255, 255], pairs: 'exhaustive', log: console.log });
    const started = performance.now();
    const result = globalMapping({ imageCount: front.views.length, verified: front.verified, keypoints: front.keypoints, cameras: front.views.map(() => front.camera) });
    const ms = performance.now() - started;
    const referenceFile = path.join(mic.dir, 'transforms_train.json');
    const reference: NamedPose[] = (await readTransformsFrames(referenceFile, await readJsonObject(referenceFile))).map((v) => ({ name: poseKey(v.name), worldToCamera: v.camera.worldToCamera }));
    const estimated: NamedPose[] = [];
    result.poses.forEach((pose, i) => {
      if (!pose) return;
      const r = pose.rotation;
      const t = pose.translation;
      estimated.push({ name: poseKey(front.views[i].name), worldToCamera: [r[0], r[1], r[2], t[0], r[3], r[4], r[5], t[1], r[6], r[7], r[8], t[2], 0, 0, 0, 1] });
    });
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
    expect(estimated.length).toBeGreaterThanOrEqual(90);
    expect(accuracy.rotationDeg.median).toBeLessThan(1);
    expect(accuracy.centre.median).toBeLessThan(0.02);
  }, 4 * 3_600_000);
});
