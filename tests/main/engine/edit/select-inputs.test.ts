import { describe, expect, it } from 'vitest';
import { EditsSelectArgs } from '../../../../shared/contract/edit-select.js';
import { lookAt } from '../../../../shared/scene/camera.js';
import { selectReference } from '../../../../main/engine/edit/select-reference.js';
import { emptyMask } from '../../../../shared/edits/selection-mask.js';
import { randomSelectScene } from '../../../parity/edit-select.parity.js';
import { rng } from '../../../helpers/random.js';

const camera = { width: 100, height: 80, fx: 90, fy: 90, cx: 50, cy: 40, worldToCamera: lookAt([0, 0, -3], [0, 0, 0]) };
const splats = randomSelectScene(rng(7), 100);

describe('selection requests that cannot mean anything are refused by name', () => {
  it('a NaN camera', () => {
    const bad = { ...camera, worldToCamera: camera.worldToCamera.map((x, i) => (i === 3 ? NaN : x)) };
    expect(() => selectReference(splats, { mode: 'replace', shape: { kind: 'rect', min: [0, 0], max: [10, 10] }, camera: bad })).toThrow(/camera has a NaN or infinite value/);
    expect(() => selectReference(splats, { mode: 'replace', shape: { kind: 'rect', min: [0, 0], max: [10, 10] }, camera: { ...camera, fx: NaN } })).toThrow(/camera has a NaN/);
  });

  it('an empty or too short polygon', () => {
    expect(() => selectReference(splats, { mode: 'add', shape: { kind: 'lasso', points: [] }, camera })).toThrow(/a lasso needs at least 3 points \(got 0\)/);
    expect(EditsSelectArgs.safeParse({ project: 'p.argo', mode: 'add', shape: { kind: 'lasso', points: [[0, 0], [1, 1]] }, camera }).error?.issues[0].message).toMatch(/at least 3 points/);
  });

  it('a negative brush radius', () => {
    expect(() => selectReference(splats, { mode: 'replace', shape: { kind: 'brush', circles: [{ centre: [5, 5], radius: 3 }, { centre: [5, 5], radius: -2 }] }, camera })).toThrow(/brush circle 1 has radius -2; expected a positive radius/);
    expect(EditsSelectArgs.safeParse({ project: 'p.argo', mode: 'replace', shape: { kind: 'brush', circles: [{ centre: [5, 5], radius: -2 }] }, camera }).error?.issues[0].message).toMatch(/brush radius must be positive/);
  });

  it('a screen shape without a camera, a shape mode without a shape, a box of negative size, masks of the wrong size', () => {
    expect(() => selectReference(splats, { mode: 'replace', shape: { kind: 'rect', min: [0, 0], max: [10, 10] } })).toThrow(/rect selection needs the viewer's camera/);
    expect(() => selectReference(splats, { mode: 'intersect' })).toThrow(/mode 'intersect' needs a shape/);
    expect(() => selectReference(splats, { mode: 'replace', shape: { kind: 'box', box: { centre: [0, 0, 0], halfSize: [1, -1, 1], rotation: [0, 0, 0, 1] } } })).toThrow(/box halfSize must be positive/);
    expect(() => selectReference(splats, { mode: 'invert', current: emptyMask(64) })).toThrow(/current selection: 2 words, expected 4/);
  });

  it('modes without a shape need nothing else and never select an excluded splat', () => {
    const exclude = emptyMask(100);
    exclude[0] = 0b1011;
    const all = selectReference(splats, { mode: 'all', exclude });
    expect(all.count).toBe(97);
    expect(all.mask[3] >>> 4).toBe(0); // splats 100..127 do not exist
    expect(selectReference(splats, { mode: 'invert', current: all.mask, exclude }).count).toBe(0);
    expect(selectReference(splats, { mode: 'none', current: all.mask }).count).toBe(0);
  });
});
