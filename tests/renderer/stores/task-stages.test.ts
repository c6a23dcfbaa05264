/** The stage checklist of capture and mesh tasks: which stages a capture has, and each stage's state. */
import { describe, expect, it } from 'vitest';
import { captureStages, MESH_STAGES, stageStates, stageText } from '../../../renderer/src/stores/task-stages.js';

describe('task stages', () => {
  it('lists the stages a capture of these inputs goes through', () => {
    // our SfM (the default) always bundle-adjusts and writes its model in the bundle stage; COLMAP's only when asked
    expect(captureStages(['video']).map((s) => s.id)).toEqual(['scan', 'extract', 'features', 'matching', 'mapping', 'bundle', 'import', 'verify']);
    expect(captureStages(['video'], { sfm: 'colmap' }).map((s) => s.id)).toEqual(['scan', 'extract', 'features', 'matching', 'mapping', 'import', 'verify']);
    expect(captureStages(['photos'], { sfm: 'colmap', bundleAdjust: true }).map((s) => s.id)).toEqual(['photos', 'features', 'matching', 'mapping', 'bundle', 'import', 'verify']);
    expect(captureStages(['video', 'photos']).slice(0, 3).map((s) => s.id)).toEqual(['scan', 'extract', 'photos']);
    expect(MESH_STAGES.map((s) => s.id)).toEqual(['load', 'fuse', 'march', 'visibility', 'clean', 'simplify', 'write']);
  });

  it('marks stages before the current one done, the current one active or failed, the rest pending', () => {
    const stages = captureStages(['video']);
    const states = (task: Parameters<typeof stageStates>[1]) => stageStates(stages, task).map((s) => `${s.def.id}:${s.state}`);
    expect(states({ state: 'running', stage: 'matching' })).toEqual(['scan:done', 'extract:done', 'features:done', 'matching:active', 'mapping:pending', 'bundle:pending', 'import:pending', 'verify:pending']);
    expect(states({ state: 'failed', stage: 'mapping' })).toContain('mapping:failed');
    expect(states({ state: 'cancelled', stage: 'features' })).toContain('features:failed');
    expect(states({ state: 'finished', stage: 'verify' }).every((s) => s.endsWith(':done'))).toBe(true);
    expect(states(undefined).every((s) => s.endsWith(':pending'))).toBe(true);
    expect(states({ state: 'running', stage: undefined }).every((s) => s.endsWith(':pending'))).toBe(true);
  });

  it('appends a stage the engine reports that the list does not know, so nothing is hidden', () => {
    const states = stageStates(captureStages(['photos']), { state: 'running', stage: 'undistort' });
    expect(states.at(-1)).toEqual({ def: { id: 'undistort', label: 'undistort' }, state: 'active' });
    expect(states.slice(0, -1).every((s) => s.state === 'done')).toBe(true);
  });

  it('describes the running stage', () => {
    expect(stageText({ stage: 'matching', fraction: 0.456 })).toBe('Match images: 46 %');
    expect(stageText({ stage: 'scan', fraction: 1, skipped: true })).toBe('Scan video: done in an earlier run');
    expect(stageText({ stage: 'fuse' })).toBe('Fuse depth');
    expect(stageText(undefined)).toBe('Starting…');
  });
});
