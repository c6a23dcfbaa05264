/** `train p.argo --partition ID` in the CLI: the blocks in turn, merged, continued when run again; misuse refused by name. */
import { afterAll, describe, expect, it } from 'vitest';
import { Project } from '../../../main/engine/project/project.js';
import { cliJson } from '../../helpers/cli-json.js';
import { cleanedTempDirs } from '../../helpers/datasets.js';
import { partitionedProject } from '../../helpers/partitions.js';

const temp = cleanedTempDirs(afterAll);

describe('train p.argo --partition', () => {
  it('trains every block here, prints their states and merges them into the splats of the run', async () => {
    const project = await partitionedProject(await temp('cli-partition'), { 'train.iterations': 20, 'train.checkpointEvery': 10 });
    const cli = await cliJson(['train', project.file, '--partition', 'partition-001']);
    expect(cli.code, cli.err).toBe(0);
    expect(cli.result).toMatchObject({ run: 'run-001', status: 'finished', partition: 'partition-001', queue: 'in-process', merge: { status: 'finished', fineTuneSteps: 0 } });
    expect((cli.result!.blocks as { status: string; worker: string }[]).map((b) => [b.status, b.worker])).toEqual([['finished', 'in-process'], ['finished', 'in-process']]);
    const finished = cli.lines.filter((l) => l.type === 'block' && l.status === 'finished').map((l) => l.block);
    expect(finished).toEqual(['block-00', 'block-01']);
    expect(cli.lines.some((l) => l.type === 'merge' && l.status === 'finished')).toBe(true);
    const saved = (await Project.open(project.file)).manifest.runs[0]!;
    expect(saved.outputs.splats).toBeDefined();
  }, 120_000);

  it('refuses misuse by name: an unknown partition (exit 3), --queue without --partition and --partition on a dataset (exit 2)', async () => {
    const project = await partitionedProject(await temp('cli-partition-bad'), { 'train.iterations': 5 });
    const unknown = await cliJson(['train', project.file, '--partition', 'partition-007']);
    expect(unknown.code).toBe(3);
    expect(unknown.error!.message).toBe(`${project.file}: no partition partition-007 (it has partition-001)`);
    const noPartition = await cliJson(['train', project.file, '--queue', 'redis://127.0.0.1:6379']);
    expect(noPartition.code).toBe(2);
    expect(noPartition.error!.message).toContain('--queue and --merge-fine-tune train the blocks of a partition: give --partition ID');
    const dataset = await cliJson(['train', '--sample', '--out', await temp('cli-partition-sample'), '--partition', 'partition-001']);
    expect(dataset.code).toBe(2);
    expect(dataset.error!.message).toContain('--partition and --queue apply to projects');
  }, 60_000);
});
