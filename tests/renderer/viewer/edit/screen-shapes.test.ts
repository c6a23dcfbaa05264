import { describe, expect, it } from 'vitest';
import { BrushStroke, isDegenerate, LassoBuilder, MAX_BRUSH_POINTS, MAX_LASSO_POINTS, modeFromModifiers, polygonArea, rectFromDrag } from '../../../../renderer/src/viewer/edit/screen-shapes.js';

const keys = (k: Partial<{ shiftKey: boolean; ctrlKey: boolean; altKey: boolean; metaKey: boolean }>) => ({ shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, ...k });

describe('selection modes from modifier keys (as SuperSplat)', () => {
  it('uses the toolbar mode without modifiers, Shift adds, Ctrl / Cmd / Alt subtract, both intersect', () => {
    expect(modeFromModifiers(keys({}), 'intersect')).toBe('intersect');
    expect(modeFromModifiers(keys({ shiftKey: true }), 'replace')).toBe('add');
    expect(modeFromModifiers(keys({ ctrlKey: true }), 'replace')).toBe('subtract');
    expect(modeFromModifiers(keys({ metaKey: true }), 'add')).toBe('subtract');
    expect(modeFromModifiers(keys({ altKey: true }), 'replace')).toBe('subtract');
    expect(modeFromModifiers(keys({ shiftKey: true, ctrlKey: true }), 'replace')).toBe('intersect');
  });
});

describe('screen-space shapes', () => {
  it('orders a dragged rectangle whichever way it was dragged, and ignores a click', () => {
    expect(rectFromDrag([50, 10], [20, 40])).toEqual({ kind: 'rect', x0: 20, y0: 10, x1: 50, y1: 40 });
    expect(isDegenerate(rectFromDrag([5, 5], [6, 30]))).toBe(true);
    expect(isDegenerate(rectFromDrag([5, 5], [60, 30]))).toBe(false);
  });

  it('keeps lasso points a few pixels apart and stays under the vertex limit with its outline', () => {
    const lasso = new LassoBuilder(3);
    lasso.add([0, 0]);
    lasso.add([1, 1]); // too close
    lasso.add([10, 0]);
    expect(lasso.shape().points).toEqual([[0, 0], [10, 0]]);
    const circle = new LassoBuilder(1);
    const n = 5000;
    for (let i = 0; i < n; i++) circle.add([200 + 150 * Math.cos((2 * Math.PI * i) / n), 200 + 150 * Math.sin((2 * Math.PI * i) / n)]);
    const points = circle.shape().points;
    expect(points.length).toBeLessThanOrEqual(MAX_LASSO_POINTS);
    expect(points.length).toBeGreaterThan(MAX_LASSO_POINTS / 4);
    // area within 2 % of the circle's: the outline survived the thinning
    expect(Math.abs(polygonArea(points))).toBeGreaterThan(0.98 * Math.PI * 150 * 150);
    expect(isDegenerate({ kind: 'lasso', points: [[0, 0], [5, 5]] })).toBe(true);
  });

  it('fills a fast brush stroke with circles at most half a radius apart, up to the limit', () => {
    const stroke = new BrushStroke(20);
    stroke.add([0, 0]);
    stroke.add([100, 0]);
    const points = stroke.shape().points;
    for (let i = 1; i < points.length; i++) expect(points[i][0] - points[i - 1][0]).toBeLessThanOrEqual(10 + 1e-9);
    expect(points.at(-1)).toEqual([100, 0]);
    const long = new BrushStroke(2);
    long.add([0, 0]);
    long.add([100000, 0]);
    expect(long.shape().points.length).toBe(MAX_BRUSH_POINTS);
    expect(() => new BrushStroke(0)).toThrow(/brush radius/);
    expect(() => new BrushStroke(Number.NaN)).toThrow(/brush radius/);
  });
});
