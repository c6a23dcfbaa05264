import { describe, expect, it } from 'vitest';
import { EditListSchema, EditOperationSchema, redoLast, undoLast, withOperation, type EditList, type EditOperation } from '../../../shared/edits/edit-list.js';

const at = '2026-12-02T00:00:00.000Z';
const op = (id: string): EditOperation => ({ op: 'delete', id, at, selection: { file: `edits/${id}.sel`, count: 3 } });
const empty: EditList = { base: { run: 'run-001', step: 7000, splats: 100 }, operations: [], undone: [] };

describe('edit lists', () => {
  it('undo moves the newest operation to the redo stack, redo brings it back, a new operation drops the redo stack', () => {
    const two = withOperation(withOperation(empty, op('a')), op('b'));
    expect(two.operations.map((o) => o.id)).toEqual(['a', 'b']);
    const undone = undoLast(two)!;
    expect(undone.operations.map((o) => o.id)).toEqual(['a']);
    expect(undone.undone.map((o) => o.id)).toEqual(['b']);
    expect(redoLast(undone)).toEqual(two);
    const branched = withOperation(undone, op('c'));
    expect(branched.operations.map((o) => o.id)).toEqual(['a', 'c']);
    expect(branched.undone).toEqual([]);
    expect(undoLast(empty)).toBeUndefined();
    expect(redoLast(two)).toBeUndefined();
  });

  it('refuses unknown operations, a crop box with a negative size, a selection outside the data folder, a bad quaternion, naming the field', () => {
    const issues = (value: unknown) => EditOperationSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') ?? '';
    expect(issues({ op: 'explode', id: 'x', at })).toMatch(/^op: /);
    expect(issues({ op: 'crop', id: 'x', at, box: { centre: [0, 0, 0], halfSize: [1, -2, 1], rotation: [0, 0, 0, 1] } })).toMatch(/box\.halfSize\.1: /);
    expect(issues({ op: 'delete', id: 'x', at, selection: { file: '../../etc/passwd', count: 1 } })).toMatch(/selection\.file: expected a path inside the data folder/);
    expect(issues({ op: 'transform', id: 'x', at, transform: { translation: [0, 0, 0], rotation: [0, 0, 0, 2], scale: 1 } })).toMatch(/transform\.rotation: expected a unit quaternion/);
    expect(issues({ op: 'transform', id: 'x', at, transform: { translation: [Number.NaN, 0, 0], rotation: [0, 0, 0, 1], scale: 1 } })).toMatch(/transform\.translation\.0: /);
    expect(EditListSchema.safeParse(withOperation(empty, op('a'))).success).toBe(true);
  });
});
