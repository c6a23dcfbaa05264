import { correctCamera } from '../../shared/scene/camera-correction.js';
import type { PinholeCamera } from '../../shared/scene/camera.js';
import type { Random } from '../../shared/random.js';

/**
 * The camera-refinement perturbation (issue 14 item 2), one source for the training test and
 * bench/camera-refine.ts: 1.5 degrees about a random axis, PERTURB_SHIFT of the scene scale along a
 * random direction, the focal length x PERTURB_FOCAL.
 */
export const PERTURB_ANGLE = (1.5 * Math.PI) / 180;
export const PERTURB_SHIFT = 0.02; // x scene scale
export const PERTURB_FOCAL = 1.05;

function unit(random: Random): [number, number, number] {
  for (;;) {
    const v = [random.next() * 2 - 1, random.next() * 2 - 1, random.next() * 2 - 1];
    const l = Math.hypot(v[0], v[1], v[2]);
    if (l > 0.1 && l <= 1) return [v[0] / l, v[1] / l, v[2] / l];
  }
}

/** `camera` turned and moved by the perturbation (`shift` in world units), its focal scaled. */
export function perturbedCamera(camera: PinholeCamera, random: Random, shift: number): PinholeCamera {
  return perturbCamera(camera, random, { angle: PERTURB_ANGLE, shift, focal: PERTURB_FOCAL });
}

/**
 * `camera` turned by `angle` (radians) about a random axis through its centre, its centre moved by
 * `shift` (world units) in a random direction, its focal lengths times `focal`.
 */
export function perturbCamera(camera: PinholeCamera, random: Random, { angle, shift, focal }: { angle: number; shift: number; focal: number }): PinholeCamera {
  const axis = unit(random);
  const dir = unit(random);
  const moved = correctCamera(camera, { rotation: [axis[0] * angle, axis[1] * angle, axis[2] * angle], translation: [dir[0] * shift, dir[1] * shift, dir[2] * shift] });
  return { ...moved, fx: camera.fx * focal, fy: camera.fy * focal };
}
