/**
 * What the GPU selection and its float64 reference share about a request: its checks (by name,
 * before any work) and the solids' frames. One place, so the two cannot disagree on what a
 * request means.
 */
import type { OrientedBox } from '../../../shared/edits/edit-list.js';
import { quatNormalize, quatToMatrix, type Quaternion } from '../../../shared/math/quaternion.js';
import { SCREEN_SHAPES, type SelectionMode, type SelectionShape } from '../../../shared/contract/edit-select.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';

export interface SelectRequest {
  mode: SelectionMode;
  /** Required by 'replace', 'add', 'subtract' and 'intersect'; ignored by the others. */
  shape?: SelectionShape;
  /** The viewer's camera, required by the screen shapes (rect, lasso, brush). */
  camera?: PinholeCamera;
  /** The current selection (bitmask words over the splats); none is empty. */
  current?: Uint32Array;
  /** Splats never selected (hidden or deleted), bitmask words; none excludes nothing. */
  exclude?: Uint32Array;
  /** Camera-space depth a splat centre must exceed to be selected by a screen shape (default 0.01). */
  near?: number;
}

export const DEFAULT_SELECT_NEAR = 0.01;

/** Whether the mode reads a shape. */
export function modeUsesShape(mode: SelectionMode): boolean {
  return mode === 'replace' || mode === 'add' || mode === 'subtract' || mode === 'intersect';
}

export function isScreenShape(shape: SelectionShape): boolean {
  return SCREEN_SHAPES.includes(shape.kind);
}

/** Refuses a request that cannot mean anything, naming the field (the schemas check types; this checks what they cannot, also for callers inside the engine). */
export function checkSelectRequest(request: SelectRequest): void {
  const { mode, shape, camera } = request;
  if (!modeUsesShape(mode)) return;
  if (!shape) throw new RangeError(`select: mode '${mode}' needs a shape`);
  const finite = (x: number) => Number.isFinite(x);
  if (isScreenShape(shape)) {
    if (!camera) throw new RangeError(`select: a ${shape.kind} selection needs the viewer's camera`);
    const numbers = [camera.fx, camera.fy, camera.cx, camera.cy, ...camera.worldToCamera];
    if (camera.worldToCamera.length !== 16 || !numbers.every(finite)) throw new RangeError('select: camera has a NaN or infinite value (fx, fy, cx, cy and the 16 numbers of worldToCamera must be finite)');
    if (!(camera.fx > 0 && camera.fy > 0)) throw new RangeError(`select: camera focal lengths must be positive (fx ${camera.fx}, fy ${camera.fy})`);
  }
  switch (shape.kind) {
    case 'rect':
      if (![...shape.min, ...shape.max].every(finite) || shape.min[0] > shape.max[0] || shape.min[1] > shape.max[1]) throw new RangeError('select: rect needs finite min <= max');
      break;
    case 'lasso':
      if (shape.points.length < 3) throw new RangeError(`select: a lasso needs at least 3 points (got ${shape.points.length})`);
      if (!shape.points.flat().every(finite)) throw new RangeError('select: a lasso point is NaN or infinite');
      break;
    case 'brush':
      if (shape.circles.length < 1) throw new RangeError('select: a brush stroke needs at least one circle');
      for (const [k, c] of shape.circles.entries()) {
        if (!(c.radius > 0) || !Number.isFinite(c.radius)) throw new RangeError(`select: brush circle ${k} has radius ${c.radius}; expected a positive radius in pixels`);
        if (!c.centre.every(finite)) throw new RangeError(`select: brush circle ${k} has a NaN or infinite centre`);
      }
      break;
    case 'box':
    case 'ellipsoid': {
      const solid = shape.kind === 'box' ? shape.box : shape.ellipsoid;
      if (!solid.halfSize.every((h) => h > 0 && Number.isFinite(h))) throw new RangeError(`select: ${shape.kind} halfSize must be positive (got ${solid.halfSize.join(', ')})`);
      if (![...solid.centre, ...solid.rotation].every(finite)) throw new RangeError(`select: ${shape.kind} centre or rotation is NaN or infinite`);
      break;
    }
    case 'opacity':
    case 'size':
      if (!(shape.min <= shape.max) || !finite(shape.min) || !finite(shape.max)) throw new RangeError(`select: ${shape.kind} range needs finite min <= max (got ${shape.min}, ${shape.max})`);
      break;
    case 'colour':
      if (!shape.rgb.every(finite) || !(shape.distance >= 0)) throw new RangeError('select: colour needs a finite rgb and a distance >= 0');
      break;
  }
}

/** The solid's frame: its centre, its three unit axes in world space (columns of its rotation) and half sizes. */
export function solidFrame(solid: OrientedBox): { centre: number[]; axes: number[][]; half: number[] } {
  const r = quatToMatrix(quatNormalize(solid.rotation as Quaternion));
  // the axes are the rotation's columns
  const axes = [0, 1, 2].map((k) => [r[k], r[3 + k], r[6 + k]]);
  return { centre: [...solid.centre], axes, half: [...solid.halfSize] };
}

/** The screen-space bounding box [minX, minY, maxX, maxY] of a screen shape (the kernel's cheap reject). */
export function screenBounds(shape: SelectionShape): [number, number, number, number] {
  if (shape.kind === 'rect') return [shape.min[0], shape.min[1], shape.max[0], shape.max[1]];
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const grow = (x: number, y: number, r: number) => {
    b[0] = Math.min(b[0], x - r);
    b[1] = Math.min(b[1], y - r);
    b[2] = Math.max(b[2], x + r);
    b[3] = Math.max(b[3], y + r);
  };
  if (shape.kind === 'lasso') for (const [x, y] of shape.points) grow(x, y, 0);
  else if (shape.kind === 'brush') for (const c of shape.circles) grow(c.centre[0], c.centre[1], c.radius);
  return b;
}
