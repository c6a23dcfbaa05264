/**
 * The camera-path player: a clock over one saved path and the Babylon pose at its time. Sampling
 * is shared/scene/camera-path-sample.ts's (the video render and the studio's timeline use the
 * same, so the tour matches the video); the OpenCV -> Babylon conversion is the studio viewer's
 * (renderer/src/viewer/opencv-frame.ts). No DOM and no Babylon here: viewer.ts applies the pose.
 */
import type { CameraPath } from '../../shared/scene/camera-path.js';
import { cameraAt, samplePath } from '../../shared/scene/camera-path-sample.js';
import { babylonCameraPose, type Vec3 } from '../src/viewer/opencv-frame.js';

export interface BabylonPose {
  position: Vec3;
  forward: Vec3;
  up: Vec3;
  fovYRadians: number;
}

/** The Babylon camera pose on `path` at `timeS` seconds (any aspect: the field of view is vertical). */
export function poseOnPath(path: CameraPath, timeS: number): BabylonPose {
  // cameraAt's image size only sets the pinhole's fy from the vertical field of view, which babylonCameraPose turns back.
  return babylonCameraPose(cameraAt(samplePath(path, timeS), 1000, 1000));
}

export class PathPlayer {
  private path: CameraPath | undefined;
  private timeS = 0;
  private playing = false;

  /** Chooses a path (undefined: none), rewound and paused. */
  select(path: CameraPath | undefined): void {
    this.path = path;
    this.timeS = 0;
    this.playing = false;
  }

  get current(): CameraPath | undefined {
    return this.path;
  }

  get isPlaying(): boolean {
    return this.playing;
  }

  get time(): number {
    return this.timeS;
  }

  get duration(): number {
    return this.path?.duration ?? 0;
  }

  /** Plays from the current time (from the start again when a path that does not loop has ended). */
  play(): void {
    if (!this.path) return;
    if (!this.path.loop && this.timeS >= this.path.duration) this.timeS = 0;
    this.playing = true;
  }

  pause(): void {
    this.playing = false;
  }

  seek(timeS: number): void {
    if (!this.path) return;
    this.timeS = Math.min(this.path.duration, Math.max(0, timeS));
  }

  /**
   * Advances the clock by `elapsedS` while playing: a looping path wraps, one that does not stops
   * at its end. Returns the pose to show, or undefined without a path.
   */
  advance(elapsedS: number): BabylonPose | undefined {
    if (!this.path) return undefined;
    if (this.playing) {
      const next = this.timeS + Math.max(0, elapsedS);
      if (this.path.loop) this.timeS = next % this.path.duration;
      else if (next >= this.path.duration) {
        this.timeS = this.path.duration;
        this.playing = false;
      } else this.timeS = next;
    }
    return poseOnPath(this.path, this.timeS);
  }
}
