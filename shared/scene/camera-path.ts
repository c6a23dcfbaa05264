/**
 * Camera paths (issue 17): keyframes a video render and the web viewer follow. A keyframe is a
 * camera pose at a time: position and orientation in the scene's world frame (the project's
 * cameras' frame, edits' transforms applied), camera-to-world, OpenCV axes (x right, y down, z
 * forward) as every camera in the product (shared/scene/camera.ts), and a vertical field of view.
 * Interpolation between keyframes (shared/scene/camera-path-sample.ts): 'smooth' is a centripetal
 * Catmull-Rom spline through the positions and a spherical spline (squad) through the rotations;
 * 'linear' is straight segments and slerp.
 *
 * Paths are saved in the project manifest (`cameraPaths`) and exchanged as JSON files
 * (`render p.argo --path path.json`): the same schema.
 */
import { z } from 'zod';
import { finite, unitQuaternion } from '../schema-values.js';


export const CameraKeyframeSchema = z.object({
  /** Seconds from the path's start. */
  time: finite.min(0),
  position: z.tuple([finite, finite, finite]),
  /** Camera-to-world rotation as a unit quaternion (x, y, z, w). */
  rotation: unitQuaternion,
  /** Vertical field of view, degrees. */
  fovYDeg: finite.gt(1).lt(170),
}).strict();
export type CameraKeyframe = z.infer<typeof CameraKeyframeSchema>;

export const CameraPathSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]{1,64}$/, 'expected lower-case letters, digits and dashes'),
    name: z.string().min(1).max(200),
    interpolation: z.enum(['smooth', 'linear']),
    /** Back to the first keyframe at `duration` (an orbit: the spline is closed, no seam). */
    loop: z.boolean(),
    /** Seconds; at least the last keyframe's time, and past it when the path loops. */
    duration: finite.positive(),
    /** At least two, times strictly increasing. */
    keyframes: z.array(CameraKeyframeSchema).min(2).max(10_000),
  })
  .strict()
  .superRefine((path, context) => {
    // Refinements run even when `keyframes` failed its own checks (zod 4): an empty list is min(2)'s to report.
    if (path.keyframes.length === 0) return;
    const last = path.keyframes.at(-1)!.time;
    if (path.duration < last || (path.loop && path.duration <= last)) {
      context.addIssue({ code: 'custom', path: ['duration'], message: `duration ${path.duration} s must be ${path.loop ? 'past' : 'at least'} the last keyframe's time (${last} s)` });
    }
    for (let k = 1; k < path.keyframes.length; k++) {
      if (!(path.keyframes[k].time > path.keyframes[k - 1].time)) {
        context.addIssue({ code: 'custom', path: ['keyframes', k, 'time'], message: `keyframe times must increase (${path.keyframes[k - 1].time} then ${path.keyframes[k].time})` });
      }
    }
  });
export type CameraPath = z.infer<typeof CameraPathSchema>;

/** How a path becomes a video: frame size and rate (the path's own times give the duration). */
export const VideoSettingsSchema = z.object({
  width: z.number().int().min(16).max(8192),
  height: z.number().int().min(16).max(8192),
  fps: z.number().int().min(1).max(240),
}).strict();
export type VideoSettings = z.infer<typeof VideoSettingsSchema>;
