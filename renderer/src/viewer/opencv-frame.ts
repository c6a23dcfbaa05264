/**
 * From the engine's frame to Babylon's, in one place.
 *
 * The engine (and every file it reads or writes) uses a right-handed world and OpenCV cameras:
 * a camera looks along its +z, +x is image right and +y image DOWN; `worldToCamera` is a
 * row-major 4x4 [R | t] (shared/scene/camera.ts). Babylon is left-handed with +y up.
 *
 * The viewer maps engine world -> Babylon world with F = diag(1, -1, 1): negate y. One reflection
 * turns the right-handed frame into a left-handed one, so nothing appears mirrored. F is applied by
 * a single parent node (`SplatViewer.engineWorld`, scaling (1, -1, 1)); splats, SfM points and
 * frustums are built in engine coordinates under it. Babylon's splat shader transforms each
 * covariance by the full world matrix, so the reflection is exact for them too.
 *
 * Which way is up depends on the dataset (COLMAP worlds are arbitrary, Blender's are z-up, the
 * engine's sample scene is y-up), so the viewer takes "up" from the training cameras: the mean of
 * their image-up axes (`babylonUpFromCameras`). Without cameras it assumes the OpenCV habit of a
 * y-down world, which F turns into Babylon's +y.
 *
 * A camera seen through Babylon: with R's rows (right r, down d, forward f) and centre C = -R^T t,
 * the Babylon camera sits at F C, looks along F f, with up vector -F d. Babylon's screen right is
 * up x forward (left-handed), and (-F d) x (F f) = F (d x f) = F r because F is a reflection:
 * the image is not mirrored. Its vertical field of view is 2 atan(height / (2 fy)); the principal
 * point offset (cx, cy) away from the image centre is not modelled by Babylon's camera.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';

export type Vec3 = [number, number, number];

/** The reflection F as a scaling vector; the only place the viewer's frame change is defined. */
export const ENGINE_TO_BABYLON_SCALING: Readonly<Vec3> = [1, -1, 1];

export function engineToBabylon(p: Readonly<Vec3>): Vec3 {
  return [p[0] * ENGINE_TO_BABYLON_SCALING[0], p[1] * ENGINE_TO_BABYLON_SCALING[1], p[2] * ENGINE_TO_BABYLON_SCALING[2]];
}

function checkMatrix(camera: PinholeCamera): readonly number[] {
  const m = camera.worldToCamera;
  if (m.length !== 16) throw new RangeError(`camera.worldToCamera: expected 16 numbers (row-major 4x4), got ${m.length}`);
  return m;
}

/** Camera axes in world coordinates: rows of R. */
export function cameraAxes(camera: PinholeCamera): { right: Vec3; down: Vec3; forward: Vec3 } {
  const m = checkMatrix(camera);
  return { right: [m[0], m[1], m[2]], down: [m[4], m[5], m[6]], forward: [m[8], m[9], m[10]] };
}

/** Camera centre in world coordinates: C = -R^T t. */
export function cameraCenter(camera: PinholeCamera): Vec3 {
  const m = checkMatrix(camera);
  const t = [m[3], m[7], m[11]];
  return [
    -(m[0] * t[0] + m[4] * t[1] + m[8] * t[2]),
    -(m[1] * t[0] + m[5] * t[1] + m[9] * t[2]),
    -(m[2] * t[0] + m[6] * t[1] + m[10] * t[2]),
  ];
}

/** World point -> camera coordinates (OpenCV): R p + t. */
export function worldToCameraPoint(camera: PinholeCamera, p: Readonly<Vec3>): Vec3 {
  const m = checkMatrix(camera);
  return [
    m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3],
    m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7],
    m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11],
  ];
}

/** Pinhole projection of a world point to pixel coordinates, or undefined behind the camera. */
export function projectToPixel(camera: PinholeCamera, p: Readonly<Vec3>): [number, number] | undefined {
  const [x, y, z] = worldToCameraPoint(camera, p);
  if (z <= 0) return undefined;
  return [camera.fx * (x / z) + camera.cx, camera.fy * (y / z) + camera.cy];
}

/**
 * The frustum as 5 world points: the centre, then the image corners (0,0), (w,0), (w,h), (0,h)
 * unprojected to `depth` along the camera's forward axis.
 */
export function frustumWorldPoints(camera: PinholeCamera, depth: number): Vec3[] {
  const c = cameraCenter(camera);
  const { right, down, forward } = cameraAxes(camera);
  const corners: [number, number][] = [
    [0, 0],
    [camera.width, 0],
    [camera.width, camera.height],
    [0, camera.height],
  ];
  const out: Vec3[] = [c];
  for (const [u, v] of corners) {
    const x = ((u - camera.cx) / camera.fx) * depth;
    const y = ((v - camera.cy) / camera.fy) * depth;
    out.push([
      c[0] + right[0] * x + down[0] * y + forward[0] * depth,
      c[1] + right[1] * x + down[1] * y + forward[1] * depth,
      c[2] + right[2] * x + down[2] * y + forward[2] * depth,
    ]);
  }
  return out;
}

/** Where a Babylon camera must be, in Babylon coordinates, to see what `camera` saw. */
export function babylonCameraPose(camera: PinholeCamera): { position: Vec3; forward: Vec3; up: Vec3; fovYRadians: number } {
  const { down, forward } = cameraAxes(camera);
  const fb = engineToBabylon(forward);
  const db = engineToBabylon(down);
  return {
    position: engineToBabylon(cameraCenter(camera)),
    forward: fb,
    up: [-db[0], -db[1], -db[2]],
    fovYRadians: 2 * Math.atan(camera.height / (2 * camera.fy)),
  };
}

/**
 * The scene's up direction in Babylon coordinates: the mean image-up axis (-down) of the cameras,
 * reflected. Worlds differ (COLMAP's is arbitrary, Blender's is z-up, the engine's sample is y-up),
 * so the cameras decide; without cameras, Babylon's +y (the OpenCV convention's "up" is -y).
 */
export function babylonUpFromCameras(cameras: readonly PinholeCamera[]): Vec3 {
  const sum: Vec3 = [0, 0, 0];
  for (const camera of cameras) {
    const { down } = cameraAxes(camera);
    for (let a = 0; a < 3; a++) sum[a] -= down[a];
  }
  const length = Math.hypot(...sum);
  if (length < 1e-6 * Math.max(1, cameras.length)) return [0, 1, 0];
  return engineToBabylon([sum[0] / length, sum[1] / length, sum[2] / length]);
}
