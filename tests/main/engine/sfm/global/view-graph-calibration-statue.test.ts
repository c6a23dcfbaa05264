import { describe, expect, it } from 'vitest';
import { bundleAdjustCpu } from '../../../../../main/engine/sfm/bundle/bundle-adjust-cpu.js';
import { BA_DEFAULTS } from '../../../../../main/engine/sfm/bundle/problem.js';
import { globalMapping } from '../../../../../main/engine/sfm/global/global-mapper.js';
import { MAPPING_DEFAULTS } from '../../../../../main/engine/sfm/global/mapping-options.js';
import { refineMapping } from '../../../../../main/engine/sfm/global/refine-mapping.js';
import { calibrateViewGraph, essentialError } from '../../../../../main/engine/sfm/global/view-graph-calibration.js';
import { TwoViewConfiguration, type PinholeIntrinsics } from '../../../../../main/engine/sfm/verify/verify-options.js';
import { rotationFromQuaternion } from '../../../../helpers/geometry.js';
import { sharedDataset } from '../../../../helpers/shared-data.js';
import { median, rotationErrorsDeg } from './alignment.js';
import { statueFrontEnd } from './statue-pairs.js';

const statue = sharedDataset('colmap_statue');

describe('view-graph calibration of the statue photos (F-only verification, one shared camera at the 1.2 x long side guess; COLMAP sparse/0 as the reference)', () => {
  if (!statue.available) console.log('view-graph calibration statue: ../shared/data/colmap_statue is absent, so the real-photo check is skipped');
  it.runIf(statue.available)('keeps the guess where the F-only pairs do not fix the focal, and reports mapping and BA from it', async () => {
    const front = await statueFrontEnd(statue.dir, 'fundamental-only');
    const { width, height } = front.sizes[0];
    const colmapFocal = front.intrinsics[0].focalX;
    const guess: PinholeIntrinsics = { focalX: 1.2 * Math.max(width, height), focalY: 1.2 * Math.max(width, height), principalX: width / 2, principalY: height / 2 };
    const cameras = front.names.map(() => guess);
    const imageCount = front.names.length;
    const fOnly = front.verified.filter((v) => v.geometry.configuration === TwoViewConfiguration.UNCALIBRATED && v.geometry.fundamental && v.geometry.inliers.length >= MAPPING_DEFAULTS.minInliers);
    const slice = [0.25, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2].map((factor) => {
      const f = factor * colmapFocal;
      return `${f.toFixed(0)} px ${median(fOnly.map((v) => essentialError(v.geometry.fundamental!, guess, f / guess.focalX, guess, f / guess.focalX))).toFixed(4)}`;
    });
    const calibration = calibrateViewGraph({ imageCount, verified: front.verified, cameras }, MAPPING_DEFAULTS);
    const [camera] = calibration.stats.cameras;
    const truthRotations = front.reference.map((r) => rotationFromQuaternion(r.qvec));
    const rotationMedian = (poses: readonly ({ rotation: Float64Array } | undefined)[]) => {
      const registered = poses.map((p, i) => (p ? i : -1)).filter((i) => i >= 0);
      return { registered: registered.length, median: median(rotationErrorsDeg(registered.map((i) => poses[i]!.rotation), registered.map((i) => truthRotations[i]))) };
    };
    const lines = [
      `view-graph calibration statue: ${imageCount} photos at ${width} px, ${fOnly.length} F-only pairs, COLMAP's focal ${colmapFocal.toFixed(0)} px, guess ${guess.focalX} px; ` +
        `median (s1 - s2) / (s1 + s2) by focal: ${slice.join(', ')}; calibration: ${camera.status} at ${camera.focal.toFixed(0)} px${camera.reason ? ` (${camera.reason})` : ''}`,
    ];
    const runs: Record<string, { registered: number; before: number; after: number; focal: number }> = {};
    for (const [name, start] of [['guess', guess], ["COLMAP's focal", { ...guess, focalX: colmapFocal, focalY: colmapFocal }]] as const) {
      const mapped = globalMapping({ imageCount, verified: front.verified, keypoints: front.keypoints, cameras: front.names.map(() => start) }, { viewGraphCalibration: true });
      const k = mapped.cameras![0];
      const refined = await refineMapping(
        { mapped, keypoints: front.keypoints, cameras: [{ model: 'PINHOLE', params: Float64Array.from([k.focalX, k.focalY, k.principalX, k.principalY]) }], imageCamera: new Uint32Array(imageCount) },
        bundleAdjustCpu,
        { bundle: BA_DEFAULTS },
      );
      const before = rotationMedian(mapped.poses);
      const after = rotationMedian(refined.poses);
      runs[name] = { registered: after.registered, before: before.median, after: after.median, focal: refined.cameras[0].params[0] };
      lines.push(
        `  from ${name} (${start.focalX.toFixed(0)} px): ${before.registered}/${imageCount} mapped, rotation error median ${before.median.toFixed(3)} deg before BA; ` +
          `after BA (shared focal refined) ${after.median.toFixed(3)} deg, focal ${refined.cameras[0].params[0].toFixed(0)} px, ${refined.meanReprojectionErrorPx.toFixed(3)} px`,
      );
    }
    console.log(lines.join('\n'));
    // The F-only pairs of 23 photos orbiting at a 27-degree field of view fit a range of focals
    // about equally (their median error is lowest near 0.4 x COLMAP's): calibration must not move
    // the focal there, where it would make the poses worse, but keep the guess and say why.
    if (camera.status === 'calibrated') expect(Math.abs(camera.focal / colmapFocal - 1)).toBeLessThan(0.1);
    else expect(camera.focal).toBe(guess.focalX);
    expect(runs["COLMAP's focal"].before).toBeLessThan(2);
    // Measured: BA with the one shared focal refined brings the guess's 21.7 deg start to 0.13 deg
    // and the focal to 2,049 px (COLMAP's 2,048): the shared camera, not the F's, fixes the focal.
    for (const run of Object.values(runs)) {
      expect(run.registered).toBe(imageCount);
      expect(run.after).toBeLessThan(0.3);
      expect(Math.abs(run.focal / colmapFocal - 1)).toBeLessThan(0.02);
    }
  }, 3_600_000);
});
