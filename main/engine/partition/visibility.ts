/**
 * Which cameras see a block (docs/scale.md): the block's region stands for itself as a sample of
 * its points plus the eight corners of its box (bounds x height range); a camera sees the block
 * when enough of that sample projects in front of it and inside its image, or when what projects
 * covers enough of the image. The first catches cameras the block fills; the second aerial cameras
 * that see only part of a large block but nothing else. Position alone would miss the oblique
 * views that look into a block from outside it, and take the ones inside that look away.
 */
import type { GroundFrame, GroundRect } from '../../../shared/project/partition.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { fromGround, toGround, type Vec3 } from './ground.js';

export interface VisibilityThresholds {
  /** Fraction of the block's sample in front of the camera and inside its image. */
  minVisibleFraction: number;
  /** Or: fraction of the image's cells (a COVERAGE_GRID x COVERAGE_GRID grid) the visible sample touches. */
  minImageCoverage: number;
}

export const DEFAULT_VISIBILITY: VisibilityThresholds = { minVisibleFraction: 0.25, minImageCoverage: 0.25 };

/** Points of a block's sample, at most this many (a stride sample of its SfM points), plus the 8 box corners. */
export const BLOCK_SAMPLE_POINTS = 256;
const COVERAGE_GRID = 8;

/** A block's region as sample points (world xyz): its points in `bounds` (strided) and the corners of its box. */
export function blockSample(frame: GroundFrame, bounds: GroundRect, height: readonly [number, number], pointsInBounds: readonly Vec3[]): Vec3[] {
  const count = Math.min(pointsInBounds.length, BLOCK_SAMPLE_POINTS);
  const step = pointsInBounds.length / Math.max(1, count);
  const sample: Vec3[] = Array.from({ length: count }, (_, k) => pointsInBounds[Math.floor(k * step)]!);
  for (const u of [bounds.min[0], bounds.max[0]]) for (const v of [bounds.min[1], bounds.max[1]]) for (const h of height) sample.push(fromGround(frame, u, v, h));
  return sample;
}

/** How much of a sample a camera sees: the fraction in front and inside the image, and the image cells it touches. */
export function sampleVisibility(camera: PinholeCamera, sample: readonly Vec3[]): { fraction: number; coverage: number } {
  const m = camera.worldToCamera;
  const cells = new Set<number>();
  let visible = 0;
  for (const p of sample) {
    const z = m[8]! * p[0] + m[9]! * p[1] + m[10]! * p[2] + m[11]!;
    if (!(z > 1e-9)) continue;
    const x = (camera.fx * (m[0]! * p[0] + m[1]! * p[1] + m[2]! * p[2] + m[3]!)) / z + camera.cx;
    const y = (camera.fy * (m[4]! * p[0] + m[5]! * p[1] + m[6]! * p[2] + m[7]!)) / z + camera.cy;
    if (!(x >= 0 && x < camera.width && y >= 0 && y < camera.height)) continue;
    visible++;
    cells.add(Math.floor((y / camera.height) * COVERAGE_GRID) * COVERAGE_GRID + Math.floor((x / camera.width) * COVERAGE_GRID));
  }
  return { fraction: sample.length ? visible / sample.length : 0, coverage: cells.size / (COVERAGE_GRID * COVERAGE_GRID) };
}

export function cameraSeesSample(camera: PinholeCamera, sample: readonly Vec3[], thresholds: VisibilityThresholds = DEFAULT_VISIBILITY): boolean {
  const { fraction, coverage } = sampleVisibility(camera, sample);
  return fraction >= thresholds.minVisibleFraction || coverage >= thresholds.minImageCoverage;
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
