/**
 * Screen-space selection shapes as the Viewer's edit tools capture them: a rectangle dragged out,
 * a lasso polygon, a brush stroke (a run of circles). Coordinates are CSS pixels from the canvas's
 * top-left, the same frame as the pinhole camera `viewPinhole` (view-camera.ts) describes, so the
 * engine's `edits.select` tests splat centres against exactly what the user drew.
 *
 * Pure: no DOM, no Babylon. The overlay (overlay-canvas.ts) draws these; the store sends them.
 */

export type Point2 = readonly [number, number];

/** How a new shape combines with the current selection (SuperSplat's keys: Shift adds, Ctrl/Alt subtracts). */
export type SelectionMode = 'replace' | 'add' | 'subtract' | 'intersect';
export const SELECTION_MODES: readonly SelectionMode[] = ['replace', 'add', 'subtract', 'intersect'];

export type ScreenShape =
  | { kind: 'rect'; x0: number; y0: number; x1: number; y1: number }
  /** Vertices in drawing order; closed implicitly; even-odd rule. */
  | { kind: 'lasso'; points: Point2[] }
  /** Centres along the stroke, each a circle of `radiusPx`. */
  | { kind: 'brush'; points: Point2[]; radiusPx: number };

/** The most lasso vertices sent (the engine's kernel takes "a few hundred"). */
export const MAX_LASSO_POINTS = 256;
/** The most brush circles sent in one stroke. */
export const MAX_BRUSH_POINTS = 512;

/**
 * The mode for a gesture: modifier keys override the toolbar's choice while held, as SuperSplat
 * does (Shift: add; Ctrl, Cmd or Alt: subtract; Shift with Ctrl/Alt: intersect).
 */
export function modeFromModifiers(keys: { shiftKey: boolean; ctrlKey: boolean; altKey: boolean; metaKey?: boolean }, toolbarMode: SelectionMode): SelectionMode {
  const remove = keys.ctrlKey || keys.altKey || Boolean(keys.metaKey);
  if (keys.shiftKey && remove) return 'intersect';
  if (keys.shiftKey) return 'add';
  if (remove) return 'subtract';
  return toolbarMode;
}

/** The rectangle spanned by a drag, corners ordered (x0 <= x1, y0 <= y1). */
export function rectFromDrag(start: Point2, end: Point2): Extract<ScreenShape, { kind: 'rect' }> {
  return { kind: 'rect', x0: Math.min(start[0], end[0]), y0: Math.min(start[1], end[1]), x1: Math.max(start[0], end[0]), y1: Math.max(start[1], end[1]) };
}

/** A shape too small to mean anything (a click, a two-point lasso): the tool ignores it. */
export function isDegenerate(shape: ScreenShape): boolean {
  if (shape.kind === 'rect') return shape.x1 - shape.x0 < 2 || shape.y1 - shape.y0 < 2;
  if (shape.kind === 'lasso') return shape.points.length < 3 || Math.abs(polygonArea(shape.points)) < 4;
  return shape.points.length === 0 || !(shape.radiusPx > 0);
}

/** Signed area (shoelace); its sign says the winding, its size whether the lasso encloses anything. */
export function polygonArea(points: readonly Point2[]): number {
  let sum = 0;
  for (let i = 0; i < points.length; i++) {
    const [x0, y0] = points[i];
    const [x1, y1] = points[(i + 1) % points.length];
    sum += x0 * y1 - x1 * y0;
  }
  return sum / 2;
}

/**
 * Collects a lasso from pointer moves: a point is kept once it is `minStepPx` from the last kept
 * one (pointer events come at the display's rate; most are a pixel apart), and past
 * MAX_LASSO_POINTS every other vertex is dropped and the step doubled, so a long lasso stays
 * within what the engine takes while keeping its outline.
 */
export class LassoBuilder {
  private readonly points: Point2[] = [];
  private stepPx: number;

  constructor(minStepPx = 3) {
    this.stepPx = minStepPx;
  }

  add(point: Point2): void {
    const last = this.points.at(-1);
    if (last && Math.hypot(point[0] - last[0], point[1] - last[1]) < this.stepPx) return;
    this.points.push([point[0], point[1]]);
    if (this.points.length > MAX_LASSO_POINTS) {
      const kept = this.points.filter((_, i) => i % 2 === 0);
      this.points.length = 0;
      this.points.push(...kept);
      this.stepPx *= 2;
    }
  }

  shape(): Extract<ScreenShape, { kind: 'lasso' }> {
    return { kind: 'lasso', points: [...this.points] };
  }
}

/**
 * Collects a brush stroke: circles spaced at most half a radius apart (filled in between fast
 * pointer moves, so a quick stroke leaves no gaps), at most MAX_BRUSH_POINTS.
 */
export class BrushStroke {
  private readonly points: Point2[] = [];

  constructor(readonly radiusPx: number) {
    if (!(radiusPx > 0) || !Number.isFinite(radiusPx)) throw new RangeError(`brush radius: expected a positive number of pixels, got ${radiusPx}`);
  }

  add(point: Point2): void {
    const last = this.points.at(-1);
    const spacing = this.radiusPx / 2;
    if (last) {
      const distance = Math.hypot(point[0] - last[0], point[1] - last[1]);
      if (distance < spacing) return;
      const steps = Math.ceil(distance / spacing);
      for (let s = 1; s <= steps && this.points.length < MAX_BRUSH_POINTS; s++) {
        const t = s / steps;
        this.points.push([last[0] + (point[0] - last[0]) * t, last[1] + (point[1] - last[1]) * t]);
      }
      return;
    }
    this.points.push([point[0], point[1]]);
  }

  shape(): Extract<ScreenShape, { kind: 'brush' }> {
    return { kind: 'brush', points: [...this.points], radiusPx: this.radiusPx };
  }
}
