import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCamerasBin, parseImagesBin } from '../../../../main/engine/dataset/colmap-binary.js';
import { extractFeatures } from '../../../../main/engine/sfm/features.js';
import { loadGreyImage } from '../../../../main/engine/sfm/grey-image.js';
import { matchFeatures } from '../../../../main/engine/sfm/match.js';
import { multiply3, normalise3, transpose3, applyMat3, type Vec3 } from '../../../../main/engine/sfm/verify/dense.js';
import { TwoViewConfiguration, type PinholeIntrinsics } from '../../../../main/engine/sfm/verify/verify-options.js';
import { verifyPairs } from '../../../../main/engine/sfm/verify/verify-pairs.js';
import { testGpu } from '../../../helpers/gpu.js';
import { sharedDataset } from '../../../helpers/shared-data.js';
import { angleBetweenDeg, rotationAngleDeg } from './verify-scenes.js';
import { rotationFromQuaternion } from '../../../helpers/geometry.js';

const statue = sharedDataset('colmap_statue');
/**
 * images/ are COLMAP's undistorted photos (SOURCE.md), whose PINHOLE model sparse/0 is read where
 * present; this checkout holds only the original SIMPLE_RADIAL model (distorted_sparse/0), whose
 * poses are the same (the undistorter keeps them): then its focal length is scaled to the photos'
 * width and the principal point is the photo's centre (as in the undistorted model).
 */
const UNDISTORTED_MODEL = 'sparse/0';
const ORIGINAL_MODEL = 'distorted_sparse/0';
const NAMES = ['DSC_5283.jpg', 'DSC_5284.jpg'];


describe('geometric verification on two statue photos (our GPU SIFT and matcher, llvmpipe here)', () => {
  if (!statue.available) console.log('verify-statue: ../shared/data/colmap_statue is absent, so the real-image check is skipped');
  it.runIf(statue.available)("recovers COLMAP's relative pose of DSC_5283 -> DSC_5284", async () => {
    const undistorted = existsSync(path.join(statue.dir, UNDISTORTED_MODEL, 'cameras.bin'));
    const model = undistorted ? UNDISTORTED_MODEL : ORIGINAL_MODEL;
    const cameras = parseCamerasBin(readFileSync(path.join(statue.dir, model, 'cameras.bin')), 'cameras.bin');
    const images = parseImagesBin(readFileSync(path.join(statue.dir, model, 'images.bin')), 'images.bin', cameras);
    const posed = NAMES.map((name) => images.find((image) => image.name === name)!);
    const ctx = await testGpu();
    const grey = await Promise.all(NAMES.map((name) => loadGreyImage(path.join(statue.dir, 'images', name))));
    const features = [];
    for (const image of grey) features.push(await extractFeatures(ctx, image, { maxFeatures: 4096 }));
    const matches = await matchFeatures(ctx, features[0], features[1]);
    const intrinsics: PinholeIntrinsics[] = posed.map((image, i) => {
      const camera = cameras.get(image.cameraId)!;
      if (undistorted) return { focalX: camera.params[0], focalY: camera.params[1], principalX: camera.params[2], principalY: camera.params[3] };
      const focal = (camera.params[0] * grey[i].width) / camera.width;
      return { focalX: focal, focalY: focal, principalX: grey[i].width / 2, principalY: grey[i].height / 2 };
    });
    const started = performance.now();
    const [verified] = verifyPairs([[0, 1]], [matches], features.map((f) => f.keypoints), intrinsics);
    const verifyMs = performance.now() - started;
    const [r1, r2] = posed.map((image) => rotationFromQuaternion(image.qvec));
    const relativeRotation = multiply3(r2, transpose3(r1));
    const r2t1 = applyMat3(relativeRotation, posed[0].tvec);
    const relativeTranslation: Vec3 = normalise3([posed[1].tvec[0] - r2t1[0], posed[1].tvec[1] - r2t1[1], posed[1].tvec[2] - r2t1[2]]);
    const g = verified.geometry;
    const rotationError = rotationAngleDeg(g.rotation!, relativeRotation);
    const translationError = angleBetweenDeg(g.translation!, relativeTranslation);
    console.log(
      `verify-statue: ${features[0].keypoints.length / 4} / ${features[1].keypoints.length / 4} keypoints, ${matches.length / 2} matches, ` +
        `${g.inliers.length} inliers (E ${g.inlierCounts.essential}, F ${g.inlierCounts.fundamental}, H ${g.inlierCounts.homography}), configuration ${g.configuration}, ` +
        `rotation error ${rotationError.toFixed(3)} deg, translation direction error ${translationError.toFixed(3)} deg, verification ${verifyMs.toFixed(0)} ms (poses from ${model}, focal ${intrinsics[0].focalX.toFixed(1)} px)`,
    );
    expect(g.configuration).toBe(TwoViewConfiguration.CALIBRATED);
    expect(g.inliers.length).toBeGreaterThanOrEqual(15);
    // Measured 0.85 deg (t 0.29 deg) against the 23-view bundle-adjusted model: two views of a 27-degree
    // field of view, where a small rotation and a sideways translation explain nearly the same motion.
    expect(rotationError).toBeLessThan(1.5);
    expect(translationError).toBeLessThan(5);
  }, 120_000);
});
