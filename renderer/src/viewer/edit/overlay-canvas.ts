/**
 * Draws the shape being captured on the 2D canvas laid over the Babylon canvas (same CSS size;
 * the backing store scaled by devicePixelRatio so lines stay sharp).
 */
import type { Point2, ScreenShape, SelectionMode } from './screen-shapes.js';

const MODE_COLOUR: Record<SelectionMode, string> = { replace: '#ffc400', add: '#5ee08a', subtract: '#ff6b6b', intersect: '#8cc4ff' };

export function sizeOverlay(canvas: HTMLCanvasElement): CanvasRenderingContext2D | undefined {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.round(canvas.clientWidth * ratio);
  const height = Math.round(canvas.clientHeight * ratio);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const ctx = canvas.getContext('2d') ?? undefined;
  ctx?.setTransform(ratio, 0, 0, ratio, 0, 0);
  return ctx;
}

export function clearOverlay(ctx: CanvasRenderingContext2D): void {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  ctx.restore();
}

/** The shape in the mode's colour: dashed outline, faint fill. */
export function drawShape(ctx: CanvasRenderingContext2D, shape: ScreenShape, mode: SelectionMode): void {
  const colour = MODE_COLOUR[mode];
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.fillStyle = `${colour}26`;
  ctx.lineWidth = 1.5;
  ctx.setLineDash(shape.kind === 'brush' ? [] : [6, 4]);
  if (shape.kind === 'rect') {
    ctx.fillRect(shape.x0, shape.y0, shape.x1 - shape.x0, shape.y1 - shape.y0);
    ctx.strokeRect(shape.x0, shape.y0, shape.x1 - shape.x0, shape.y1 - shape.y0);
  } else if (shape.kind === 'lasso' && shape.points.length > 1) {
    ctx.beginPath();
    shape.points.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
    ctx.closePath();
    ctx.fill();
    ctx.stroke();
  } else if (shape.kind === 'brush') {
    ctx.beginPath();
    for (const [x, y] of shape.points) {
      ctx.moveTo(x + shape.radiusPx, y);
      ctx.arc(x, y, shape.radiusPx, 0, 2 * Math.PI);
    }
    ctx.fill();
  }
  ctx.restore();
}

/** The brush's outline under the pointer, before and while painting. */
export function drawBrushCursor(ctx: CanvasRenderingContext2D, at: Point2, radiusPx: number, mode: SelectionMode): void {
  ctx.save();
  ctx.strokeStyle = MODE_COLOUR[mode];
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.arc(at[0], at[1], radiusPx, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.restore();
}
