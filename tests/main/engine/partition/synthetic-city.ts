/**
 * A synthetic scene for the partition tests: a grid of box-shaped objects (SfM points on their
 * surfaces) on a ground of scattered points, each object watched by cameras around it, looking
 * down at it obliquely; the whole optionally rotated (a tilted ground).
 */
import { lookAt, type PinholeCamera } from '../../../../shared/scene/camera.js';
import type { SplitCamera } from '../../../../main/engine/partition/split.js';

export type Mat3 = [number, number, number, number, number, number, number, number, number];

export interface City {
  cameras: SplitCamera[];
  points: Float64Array;
  /** Object centres (world), and for each camera the object it looks at. */
  objects: [number, number, number][];
  target: number[];
  rotation: Mat3;
}

const IDENTITY: Mat3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

export function rotationAbout(axis: [number, number, number], angle: number): Mat3 {
  const l = Math.hypot(...axis);
  const [x, y, z] = axis.map((a) => a / l) as [number, number, number];
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const t = 1 - c;
  return [t * x * x + c, t * x * y - s * z, t * x * z + s * y, t * x * y + s * z, t * y * y + c, t * y * z - s * x, t * x * z - s * y, t * y * z + s * x, t * z * z + c];
}

export const apply = (r: Mat3, p: readonly number[]): [number, number, number] => [r[0] * p[0]! + r[1] * p[1]! + r[2] * p[2]!, r[3] * p[0]! + r[4] * p[1]! + r[5] * p[2]!, r[6] * p[0]! + r[7] * p[1]! + r[8] * p[2]!];

/** `cols` x `rows` objects `spacing` apart along x and y, up = z before `rotation`. */
export function syntheticCity(random: () => number, options: { cols: number; rows: number; spacing?: number; pointsPerObject?: number; groundPoints?: number; rotation?: Mat3; camerasPerObject?: number; skipCamerasOf?: number[]; imageWidth?: number }): City {
  const spacing = options.spacing ?? 4;
  const r = options.rotation ?? IDENTITY;
  const points: number[] = [];
  const objects: [number, number, number][] = [];
  for (let j = 0; j < options.rows; j++) for (let i = 0; i < options.cols; i++) objects.push([i * spacing, j * spacing, 0.5]);
  for (const [ox, oy] of objects) {
    for (let k = 0; k < (options.pointsPerObject ?? 150); k++) {
      // a point on the surface of a 1 x 1 x 1 box standing on the ground
      const p = [ox - 0.5 + random(), oy - 0.5 + random(), random()];
      const face = Math.floor(random() * 5);
      if (face < 4) p[face % 2] = (face % 2 === 0 ? ox : oy) + (face < 2 ? -0.5 : 0.5);
      else p[2] = 1;
      points.push(...apply(r, p));
    }
  }
  const width = (options.cols - 1) * spacing;
  const depth = (options.rows - 1) * spacing;
  for (let k = 0; k < (options.groundPoints ?? 200); k++) points.push(...apply(r, [-1 + random() * (width + 2), -1 + random() * (depth + 2), 0]));
  const cameras: SplitCamera[] = [];
  const target: number[] = [];
  const perObject = options.camerasPerObject ?? 4;
  const up = apply(r, [0, 0, 1]);
  objects.forEach((o, index) => {
    if (options.skipCamerasOf?.includes(index)) return;
    for (let c = 0; c < perObject; c++) {
      const a = (2 * Math.PI * (c + random() * 0.3)) / perObject;
      const eye = apply(r, [o[0] + 2.2 * Math.cos(a), o[1] + 2.2 * Math.sin(a), 2.4]);
      // 64 x 48 by default; wider images keep the field of view (4:3, fx = 0.625 width)
      const w = options.imageWidth ?? 64;
      const h = Math.round((w * 3) / 4);
      const camera: PinholeCamera = { width: w, height: h, fx: 0.625 * w, fy: 0.625 * w, cx: w / 2, cy: h / 2, worldToCamera: lookAt(eye, apply(r, o), up) };
      cameras.push({ name: `cam-${String(cameras.length).padStart(3, '0')}.png`, camera });
      target.push(index);
    }
  });
  return { cameras, points: Float64Array.from(points), objects: objects.map((o) => apply(r, o)), target, rotation: r };
}
