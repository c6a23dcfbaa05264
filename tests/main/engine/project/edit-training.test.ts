import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addEditOperation } from '../../../../main/engine/project/edits.js';
import { createSampleProject } from '../../../../main/engine/project/import.js';
import { projectSplats } from '../../../../main/engine/project/splats.js';
import { trainProject } from '../../../../main/engine/project/train-run.js';
import type { TrainEvent } from '../../../../shared/contract/train-events.js';
import { tempDir } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';

describe('training after edits', () => {
  it('starts a new run from the edited splats, records it, keeps the old list in the history and carries the transform', async () => {
    const ctx = await testGpu();
    const dir = await tempDir('edit-train');
    const project = await createSampleProject(path.join(dir, 's.argo'), { 'train.iterations': 3, 'train.initPoints': 300 });
    await trainProject(ctx, project);
    const trained = await projectSplats(project);
    const n = trained.splats.count;
    const gone = Uint32Array.from({ length: Math.floor(n / 3) }, (_, i) => 3 * i);
    await addEditOperation(project, { op: 'delete' }, gone);
    await addEditOperation(project, { op: 'hide' }, Uint32Array.of(1)); // hidden, not deleted: it trains
    await addEditOperation(project, { op: 'transform', transform: { translation: [0, 1, 0], rotation: [0, 0, 0, 1], scale: 1.5 } });
    const kept = n - gone.length;

    const logs: string[] = [];
    const result = await trainProject(ctx, project, { onEvent: (e: TrainEvent) => void (e.type === 'log' && logs.push(e.message)) });
    expect(result.run.id).toBe('run-002');
    expect(logs.join('\n')).toContain(`run-002 starts from the edited splats of run-001 step 3 (3 edits, ${kept} splats)`);
    expect(logs.join('\n')).toContain(`${kept} initial splats`);
    const manifest = JSON.parse(readFileSync(project.file, 'utf8'));
    expect(manifest.runs[1].startedFrom).toEqual({ run: 'run-001', step: 3, operations: 3, splats: kept });
    expect(manifest.edits.history).toHaveLength(1);
    expect(manifest.edits.history[0]).toMatchObject({ base: { run: 'run-001', step: 3, splats: n }, closedAt: expect.any(String) });
    expect(manifest.edits.history[0].operations.map((o: { op: string }) => o.op)).toEqual(['delete', 'hide', 'transform']);
    expect(manifest.edits.current).toMatchObject({
      base: { run: 'run-002', step: 3, splats: result.splatCount },
      operations: [{ op: 'transform', id: 'e-0004', transform: { translation: [0, 1, 0], rotation: [0, 0, 0, 1], scale: 1.5 } }],
    });
    // what the project shows is the new run's splats, transformed as the user had it
    const shown = await projectSplats(project);
    const raw = await projectSplats(project, undefined, { raw: true });
    expect(shown.splats.count).toBe(raw.splats.count);
    expect(shown.splats.means[1]).toBeCloseTo(1.5 * raw.splats.means[1] + 1, 4);
  }, 120_000);
});
