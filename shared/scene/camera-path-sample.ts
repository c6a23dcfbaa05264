/**
 * Sampling camera paths (shared/scene/camera-path.ts): the one interpolation the video render, the
 * Viewer's timeline and the web viewer use, so a preview and its video agree frame for frame.
 *
 * 'smooth': positions follow the centripetal Catmull-Rom spline through the keyframes (knots
 * spaced by the square root of the distance, which never cusps or loops inside a segment), and
 * time maps to that spline's parameter through a monotone C1 cubic (Fritsch-Butland), so the
 * curve passes through every keyframe at its time and the velocity in time is continuous even
 * when keyframes are unevenly spaced. Rotations follow squad with the inner control points solved
 * for one angular velocity at each keyframe (the central difference of its neighbours' steps, per
 * second): plain squad is C1 only for evenly spaced keys. Quaternions are made sign-continuous
 * first, so each segment turns the short way. The field of view is a monotone C1 cubic in time.
 * 'linear': straight segments, slerp and linear field of view, in time.
 *
 * Ends: a path that does not loop holds its first keyframe before its time and its last after
 * it (the spline's ends mirror the neighbouring segment). A looping path is periodic with period
 * `duration`: the first keyframe recurs at its time plus `duration` (at `duration` when it is at
 * 0), and the spline is closed through it, so there is no seam. A quaternion after a full turn
 * may come back as its negative (the same rotation).
 *
 * Pure TypeScript: shared by the engine and the renderer.
 */
import type { CameraKeyframe, CameraPath } from './camera-path.js';
import { lookAt, type PinholeCamera } from './camera.js';
import {
  quatConjugate, quatFromMatrix, quatLogBetween, quatMultiply, quatNearest, quatNormalize, quatSlerp, quatStep, quatToMatrix,
  type Quaternion,
} from '../math/quaternion.js';

/** A camera on a path: where it is, which way it looks (camera-to-world, OpenCV axes) and its vertical field of view. */
export interface PathSample {
  position: [number, number, number];
  /** Camera-to-world rotation, unit quaternion (x, y, z, w). */
  rotation: [number, number, number, number];
  fovYDeg: number;
}

/** One frame of a video: its index, its time and where the camera is then. */
export interface PathFrame extends PathSample {
  index: number;
  timeS: number;
}

type Vec3 = [number, number, number];

/** The keyframes with one extra at each end (mirrored, or wrapped for a loop), signs continuous: every real segment has both neighbours. */
interface PreparedPath {
  path: CameraPath;
  times: number[];
  positions: Vec3[];
  rotations: Quaternion[];
  fovs: number[];
  /** Spline parameter of each knot (centripetal: cumulative square roots of the distances). */
  knots: number[];
  /** d(knot parameter)/dt at each knot. */
  knotRates: number[];
  /** dP/d(knot parameter) at each knot (Catmull-Rom's tangents). */
  tangents: Vec3[];
  /** d fov / dt at each knot. */
  fovRates: number[];
  /** Squad's control points leaving and reaching each knot. */
  rotationOut: Quaternion[];
  rotationIn: Quaternion[];
}

const sub = (a: readonly number[], b: readonly number[]): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const scale = (a: readonly number[], s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
const add = (a: readonly number[], b: readonly number[]): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];

const prepared = new WeakMap<CameraPath, PreparedPath>();

/** Where the camera is at `timeS` seconds along `path` (see the header for the ends and loops). */
export function samplePath(path: CameraPath, timeS: number): PathSample {
  if (!Number.isFinite(timeS)) throw new Error(`samplePath: time must be a finite number of seconds, got ${timeS}`);
  let p = prepared.get(path);
  if (!p) {
    p = preparePath(path);
    prepared.set(path, p);
  }
  const first = p.path.keyframes[0].time;
  let t = timeS;
  if (path.loop) t = first + (((timeS - first) % path.duration) + path.duration) % path.duration;
  // Real knots are 1 .. length - 2 (0 and the last are the extra neighbours).
  const lastReal = p.times.length - 2;
  if (t <= p.times[1]) return knotSample(p, 1);
  if (t >= p.times[lastReal]) return knotSample(p, lastReal);
  let lo = 1;
  let hi = lastReal;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (p.times[mid] <= t) lo = mid;
    else hi = mid;
  }
  return segmentSample(p, lo, t);
}

/** The frames of a video of `path` at `fps`: round(duration * fps) of them, frame k at k / fps seconds. */
export function pathFrames(path: CameraPath, fps: number): PathFrame[] {
  if (!(fps > 0) || !Number.isFinite(fps)) throw new Error(`pathFrames: fps must be a positive number, got ${fps}`);
  const count = Math.round(path.duration * fps);
  const frames: PathFrame[] = [];
  for (let index = 0; index < count; index++) frames.push({ index, timeS: index / fps, ...samplePath(path, index / fps) });
  return frames;
}

/** The pinhole camera of a sample at a frame size: square pixels, principal point at the centre. */
export function cameraAt(sample: PathSample, width: number, height: number): PinholeCamera {
  const fy = (0.5 * height) / Math.tan((sample.fovYDeg * Math.PI) / 360);
  const r = quatToMatrix(sample.rotation); // camera-to-world
  const [px, py, pz] = sample.position;
  const worldToCamera: number[] = [];
  for (let row = 0; row < 3; row++) {
    // Row `row` of R^T is column `row` of R.
    const a = r[row];
    const b = r[3 + row];
    const c = r[6 + row];
    worldToCamera.push(a, b, c, -(a * px + b * py + c * pz));
  }
  worldToCamera.push(0, 0, 0, 1);
  return { width, height, fx: fy, fy, cx: width / 2, cy: height / 2, worldToCamera };
}

/** The pose of a camera as a path sample (a keyframe from the current view). */
export function sampleOfCamera(camera: PinholeCamera): PathSample {
  const m = camera.worldToCamera;
  const cameraToWorld = [m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]];
  const position: Vec3 = [
    -(m[0] * m[3] + m[4] * m[7] + m[8] * m[11]),
    -(m[1] * m[3] + m[5] * m[7] + m[9] * m[11]),
    -(m[2] * m[3] + m[6] * m[7] + m[10] * m[11]),
  ];
  return { position, rotation: quatFromMatrix(cameraToWorld), fovYDeg: (2 * Math.atan((0.5 * camera.height) / camera.fy) * 180) / Math.PI };
}

export interface OrbitOptions {
  /** The point every camera looks at (the scene's centre). */
  centre: readonly [number, number, number];
  /** Distance from the orbit's axis (through `centre` along `up`). */
  radius: number;
  /** Height of the orbit above `centre`, along `up` (negative: below). */
  height: number;
  /** The world's up direction (need not be unit length). */
  up: readonly [number, number, number];
  /** Full turns around the axis; an integer count gives a closed loop. */
  turns: number;
  duration: number;
  fovYDeg: number;
  /** Keyframes on the orbit (at least 4 per turn, so each segment turns the short way). */
  keyframes: number;
  id?: string;
  name?: string;
}

/**
 * A path orbiting `centre` counter-clockwise about `up`, every camera looking at the centre with
 * the world's up as its up (OpenCV axes: its y axis points down the screen). Starts in the
 * direction of the world axis most perpendicular to `up`. Whole turns loop with no seam; a
 * fraction of a turn ends at `duration`.
 */
export function orbitPath(options: OrbitOptions): CameraPath {
  const { centre, radius, height, turns, duration, fovYDeg, keyframes } = options;
  if (!(radius > 0)) throw new Error(`orbitPath: radius must be positive, got ${radius}`);
  if (!(turns > 0) || !(duration > 0)) throw new Error(`orbitPath: turns and duration must be positive, got ${turns} and ${duration}`);
  if (!Number.isInteger(keyframes) || keyframes < 4 * turns) throw new Error(`orbitPath: expected an integer of at least ${Math.ceil(4 * turns)} keyframes (4 per turn), got ${keyframes}`);
  const upLength = Math.hypot(...options.up);
  if (!(upLength > 0)) throw new Error('orbitPath: up must be a non-zero vector');
  const up = scale(options.up, 1 / upLength);
  const axis = [0, 1, 2].reduce((best, i) => (Math.abs(up[i]) < Math.abs(up[best]) ? i : best), 0);
  const seed: Vec3 = [0, 0, 0];
  seed[axis] = 1;
  const e1 = normalize(sub(seed, scale(up, up[axis])));
  const e2 = cross(up, e1);
  const loop = Number.isInteger(turns);
  const count = loop ? keyframes : keyframes + 1; // a partial orbit also keys its end
  const frames: CameraKeyframe[] = [];
  for (let k = 0; k < count; k++) {
    const fraction = k / keyframes;
    const angle = 2 * Math.PI * turns * fraction;
    const eye = add(add(centre, scale(up, height)), add(scale(e1, radius * Math.cos(angle)), scale(e2, radius * Math.sin(angle))));
    const w2c = lookAt(eye, centre, up);
    const cameraToWorld = [w2c[0], w2c[4], w2c[8], w2c[1], w2c[5], w2c[9], w2c[2], w2c[6], w2c[10]];
    frames.push({ time: duration * fraction, position: eye, rotation: quatFromMatrix(cameraToWorld), fovYDeg });
  }
  return { id: options.id ?? 'orbit', name: options.name ?? 'Orbit', interpolation: 'smooth', loop, duration, keyframes: frames };
}

function normalize(v: Vec3): Vec3 {
  const length = Math.hypot(...v);
  return scale(v, 1 / length);
}

function cross(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function knotSample(p: PreparedPath, k: number): PathSample {
  return { position: [...p.positions[k]], rotation: quatNormalize(p.rotations[k]), fovYDeg: p.fovs[k] };
}

/** Cubic Hermite on [0, 1] with end values a, b and end slopes (per unit u) da, db. */
function hermite(a: number, b: number, da: number, db: number, u: number): number {
  const u2 = u * u;
  const u3 = u2 * u;
  return (2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * da + (-2 * u3 + 3 * u2) * b + (u3 - u2) * db;
}

function segmentSample(p: PreparedPath, k: number, t: number): PathSample {
  const h = p.times[k + 1] - p.times[k];
  const u = (t - p.times[k]) / h;
  if (p.path.interpolation === 'linear') {
    return {
      position: add(p.positions[k], scale(sub(p.positions[k + 1], p.positions[k]), u)),
      rotation: quatSlerp(p.rotations[k], p.rotations[k + 1], u),
      fovYDeg: p.fovs[k] + (p.fovs[k + 1] - p.fovs[k]) * u,
    };
  }
  const knotSpan = p.knots[k + 1] - p.knots[k];
  const knot = hermite(p.knots[k], p.knots[k + 1], p.knotRates[k] * h, p.knotRates[k + 1] * h, u);
  const sigma = Math.min(1, Math.max(0, (knot - p.knots[k]) / knotSpan));
  const position = [0, 1, 2].map((i) =>
    hermite(p.positions[k][i], p.positions[k + 1][i], p.tangents[k][i] * knotSpan, p.tangents[k + 1][i] * knotSpan, sigma)) as Vec3;
  const outer = quatSlerp(p.rotations[k], p.rotations[k + 1], u);
  const inner = quatSlerp(p.rotationOut[k], p.rotationIn[k + 1], u);
  const rotation = quatSlerp(outer, inner, 2 * u * (1 - u));
  const fovYDeg = hermite(p.fovs[k], p.fovs[k + 1], p.fovRates[k] * h, p.fovRates[k + 1] * h, u);
  return { position, rotation, fovYDeg };
}

/** The extended knot list (see PreparedPath) and every per-knot quantity the segments need. */
function preparePath(path: CameraPath): PreparedPath {
  const keys = path.keyframes;
  const n = keys.length;
  if (n < 2) throw new Error(`samplePath: path '${path.id}' needs at least two keyframes, has ${n}`);
  type Knot = { time: number; position: Vec3; rotation: Quaternion; fovYDeg: number };
  const real: Knot[] = keys.map((k) => ({ time: k.time, position: [...k.position], rotation: quatNormalize(k.rotation), fovYDeg: k.fovYDeg }));
  let knots: Knot[];
  if (path.loop) {
    const shifted = (k: Knot, dt: number): Knot => ({ ...k, time: k.time + dt });
    knots = [shifted(real[n - 1], -path.duration), ...real, shifted(real[0], path.duration), shifted(real[1], path.duration)];
  } else {
    const mirror = (end: Knot, next: Knot): Knot => ({
      time: 2 * end.time - next.time,
      position: sub(scale(end.position, 2), next.position),
      rotation: quatMultiply(end.rotation, quatConjugate(quatMultiply(quatConjugate(end.rotation), quatNearest(next.rotation, end.rotation)))),
      fovYDeg: 2 * end.fovYDeg - next.fovYDeg,
    });
    knots = [mirror(real[0], real[1]), ...real, mirror(real[n - 1], real[n - 2])];
  }
  // Sign continuity from the first real knot outwards.
  const rotations = knots.map((k) => k.rotation);
  for (let i = 2; i < rotations.length; i++) rotations[i] = quatNearest(rotations[i], rotations[i - 1]);
  rotations[0] = quatNearest(rotations[0], rotations[1]);

  const times = knots.map((k) => k.time);
  const positions = knots.map((k) => k.position);
  const fovs = knots.map((k) => k.fovYDeg);
  const steps = positions.slice(1).map((pos, i) => Math.sqrt(Math.hypot(...sub(pos, positions[i]))));
  // Coincident keyframes (a camera turning in place) still need distinct knots.
  const floor = Math.max(1e-9, 1e-6 * Math.max(...steps));
  const knotValues = [0];
  for (const step of steps) knotValues.push(knotValues.at(-1)! + Math.max(step, floor));

  const last = knots.length - 1;
  const tangents: Vec3[] = knots.map((_, i) => {
    const a = Math.max(0, i - 1);
    const b = Math.min(last, i + 1);
    if (i === 0 || i === last) return scale(sub(positions[b], positions[a]), 1 / (knotValues[b] - knotValues[a]));
    const before = scale(sub(positions[i], positions[a]), 1 / (knotValues[i] - knotValues[a]));
    const across = scale(sub(positions[b], positions[a]), 1 / (knotValues[b] - knotValues[a]));
    const after = scale(sub(positions[b], positions[i]), 1 / (knotValues[b] - knotValues[i]));
    return add(sub(before, across), after);
  });

  const rotationOut: Quaternion[] = [];
  const rotationIn: Quaternion[] = [];
  for (let i = 0; i <= last; i++) {
    if (i === 0 || i === last) {
      rotationOut.push(rotations[i]);
      rotationIn.push(rotations[i]);
      continue;
    }
    const toNext = quatLogBetween(rotations[i], rotations[i + 1]);
    const toPrevious = quatLogBetween(rotations[i], rotations[i - 1]);
    const hAfter = times[i + 1] - times[i];
    const hBefore = times[i] - times[i - 1];
    const velocity = scale(sub(toNext, toPrevious), 1 / (hAfter + hBefore)); // local angular step per second
    rotationOut.push(quatStep(rotations[i], scale(sub(scale(velocity, hAfter), toNext), 0.5)));
    rotationIn.push(quatStep(rotations[i], scale(add(scale(velocity, hBefore), toPrevious), -0.5)));
  }
  return {
    path, times, positions, rotations, fovs, knots: knotValues, tangents, rotationOut, rotationIn,
    knotRates: monotoneSlopes(times, knotValues),
    fovRates: monotoneSlopes(times, fovs),
  };
}

/**
 * Slopes of the Fritsch-Butland monotone cubic through (x, y): the weighted harmonic mean of the
 * neighbouring secants, zero at a local extremum, so the cubic never overshoots its data.
 */
function monotoneSlopes(x: number[], y: number[]): number[] {
  const last = x.length - 1;
  const secant = (i: number) => (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
  return x.map((_, i) => {
    if (i === 0) return secant(0);
    if (i === last) return secant(last - 1);
    const before = secant(i - 1);
    const after = secant(i);
    if (before * after <= 0) return 0;
    const hBefore = x[i] - x[i - 1];
    const hAfter = x[i + 1] - x[i];
    const wBefore = 2 * hAfter + hBefore;
    const wAfter = hAfter + 2 * hBefore;
    return (wBefore + wAfter) / (wBefore / before + wAfter / after);
  });
}
