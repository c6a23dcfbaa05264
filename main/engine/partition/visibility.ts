/**
 * Which cameras see a block (docs/scale.md), by two tests of what projects in front of a camera
 * and inside its image. Share: of a sample of the whole scene's points that the camera sees, the
 * fraction inside the block's bounds (the block is a main part of its view: a camera looking at
 * something in the block, from inside or outside it). Fraction: of the block's own sample (its
 * points strided, plus the 8 corners of its box), the fraction it sees (a camera that sees the
 * whole block from afar). Position alone would miss the oblique views that look into a block from
 * outside, and take the ones inside that look away.
 */
import type { GroundFrame, GroundRect } from '../../../shared/project/partition.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { fromGround, toGround, type Vec3 } from './ground.js';

export interface VisibilityThresholds {
  /** Of the scene sample a camera sees, the fraction inside the block's bounds. */
  minShare: number;
  /** Or: the fraction of the block's own sample in front of the camera and inside its image. */
  minVisibleFraction: number;
}

export const DEFAULT_VISIBILITY: VisibilityThresholds = { minShare: 0.2, minVisibleFraction: 0.5 };

/** Points of a block's sample, at most this many (a stride sample of its SfM points), plus the 8 box corners. */
export const BLOCK_SAMPLE_POINTS = 256;
/** Points of the scene's sample for the share test. */
export const SCENE_SAMPLE_POINTS = 4096;

/** At most `count` of the points (xyz triples), evenly strided. */
export function strideSample(points: ArrayLike<number>, count: number): Vec3[] {
  const total = Math.floor(points.length / 3);
  const n = Math.min(total, count);
  const step = total / Math.max(1, n);
  return Array.from({ length: n }, (_, k) => {
    const i = Math.floor(k * step);
    return [points[3 * i]!, points[3 * i + 1]!, points[3 * i + 2]!] as Vec3;
  });
}

/** A block's region as sample points (world xyz): its points in `bounds` (strided) and the corners of its box. */
export function blockSample(frame: GroundFrame, bounds: GroundRect, height: readonly [number, number], pointsInBounds: readonly Vec3[]): Vec3[] {
  const count = Math.min(pointsInBounds.length, BLOCK_SAMPLE_POINTS);
  const step = pointsInBounds.length / Math.max(1, count);
  const sample: Vec3[] = Array.from({ length: count }, (_, k) => pointsInBounds[Math.floor(k * step)]!);
  for (const u of [bounds.min[0], bounds.max[0]]) for (const v of [bounds.min[1], bounds.max[1]]) for (const h of height) sample.push(fromGround(frame, u, v, h));
  return sample;
}

/** Whether a world point projects in front of the camera and inside its image. */
export function projectsInto(camera: PinholeCamera, p: Vec3): boolean {
  const m = camera.worldToCamera;
  const z = m[8]! * p[0] + m[9]! * p[1] + m[10]! * p[2] + m[11]!;
  if (!(z > 1e-9)) return false;
  const x = (camera.fx * (m[0]! * p[0] + m[1]! * p[1] + m[2]! * p[2] + m[3]!)) / z + camera.cx;
  const y = (camera.fy * (m[4]! * p[0] + m[5]! * p[1] + m[6]! * p[2] + m[7]!)) / z + camera.cy;
  return x >= 0 && x < camera.width && y >= 0 && y < camera.height;
}

export interface VisibilityBlock {
  bounds: GroundRect;
  height: readonly [number, number];
}

/**
 * For each block, the indices of the cameras that see it (share or fraction, as above). `points`
 * are the scene's SfM points (xyz triples).
 */
export function camerasSeeingBlocks(frame: GroundFrame, blocks: readonly VisibilityBlock[], points: ArrayLike<number>, cameras: readonly PinholeCamera[], thresholds: VisibilityThresholds = DEFAULT_VISIBILITY): number[][] {
  const scene = strideSample(points, SCENE_SAMPLE_POINTS).map((p) => ({ p, ground: toGround(frame, p) }));
  const samples = blocks.map((b) => blockSample(frame, b.bounds, b.height, pointsInRect(frame, b.bounds, points).points));
  const seeing = blocks.map(() => [] as number[]);
  cameras.forEach((camera, c) => {
    const inBlock = new Array<number>(blocks.length).fill(0);
    let seen = 0;
    for (const { p, ground } of scene) {
      if (!projectsInto(camera, p)) continue;
      seen++;
      blocks.forEach((b, i) => {
        if (inRect(b.bounds, ground[0], ground[1])) inBlock[i]!++;
      });
    }
    blocks.forEach((_, i) => {
      const sample = samples[i]!;
      const share = seen ? inBlock[i]! / seen : 0;
      const visible = sample.reduce((n, p) => n + (projectsInto(camera, p) ? 1 : 0), 0);
      if (share >= thresholds.minShare || (sample.length > 0 && visible / sample.length >= thresholds.minVisibleFraction)) seeing[i]!.push(c);
    });
  });
  return seeing;
}

/** Whether a ground point lies in a rectangle (closed). */
export function inRect(rect: GroundRect, u: number, v: number): boolean {
  return u >= rect.min[0] && u <= rect.max[0] && v >= rect.min[1] && v <= rect.max[1];
}

/** The points (xyz triples) whose ground position lies in `bounds`, with their heights' range. */
export function pointsInRect(frame: GroundFrame, rect: GroundRect, points: ArrayLike<number>): { indices: number[]; points: Vec3[]; height: [number, number] } {
  const indices: number[] = [];
  const inside: Vec3[] = [];
  let low = Infinity;
  let high = -Infinity;
  for (let i = 0; i * 3 + 2 < points.length; i++) {
    const p: Vec3 = [points[3 * i]!, points[3 * i + 1]!, points[3 * i + 2]!];
    const [u, v, h] = toGround(frame, p);
    if (!inRect(rect, u, v)) continue;
    indices.push(i);
    inside.push(p);
    low = Math.min(low, h);
    high = Math.max(high, h);
  }
  return { indices, points: inside, height: inside.length ? [low, high] : [0, 0] };
}
