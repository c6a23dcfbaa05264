/**
 * `train p.argo --partition ID [--queue URL] [--merge-fine-tune N]`: trains the project as the
 * blocks of one of its partitions (docs/scale.md), here one after another or, with `--queue`, as
 * jobs for `worker` processes, then merges them. Run again, it continues the same run: finished
 * blocks are kept, a coordinator re-attaches to the queue's jobs.
 */
import { openGpu } from '../../engine/gpu/context.js';
import type { Project } from '../../engine/project/project.js';
import { checkQueueReachable } from '../../engine/partition/queue-connection.js';
import { projectPartition } from '../../engine/partition/partitions.js';
import { trainPartitioned } from '../../engine/partition/run-blocks.js';
import { UsageError } from '../args.js';
import type { CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { presetOf, trainEventPrinter } from '../training.js';

export async function trainPartitionedCommand(context: CommandContext, project: Project): Promise<number> {
  const { options, out, engineOptions } = context;
  if (options['new-run']) throw new UsageError('--new-run: a partitioned run continues until it has finished; a finished one is followed by a new run anyway');
  if (options.out) throw new UsageError('--out: a partitioned run writes its merged splats into the project');
  const fineTune = options['merge-fine-tune'] as number | undefined;
  if (fineTune !== undefined && fineTune < 0) throw new UsageError(`--merge-fine-tune: expected 0 or more steps, got ${fineTune}`);
  // An unknown partition, an unreachable or refusing queue are named before the GPU opens or the run is written.
  projectPartition(project, options.partition as string);
  if (options.queue) await checkQueueReachable(options.queue as string);
  const gpu = await openGpu(engineOptions);
  try {
    if (!engineOptions.profile) gpu.profiler.setMode('off');
    const { run, alreadyFinished } = await trainPartitioned(gpu, project, {
      partition: options.partition as string,
      queue: options.queue as string | undefined,
      mergeFineTune: fineTune,
      overrides: context.params,
      preset: presetOf(context),
      signal: context.signal,
      onEvent: trainEventPrinter(out, { file: project.file, name: project.manifest.name }),
    });
    const blocks = run.partition.blocks.map((b) => ({ block: b.block, status: b.status, step: b.step, attempts: b.attempts, worker: b.worker, splats: b.splatCount }));
    out.result(
      { project: project.file, run: run.id, status: run.status, partition: run.partition.partition, queue: run.partition.queue, blocks, already_finished: alreadyFinished, merge: run.partition.merge },
      run.status === 'finished'
        ? `trained ${project.manifest.name} ${run.id} as ${blocks.length} blocks of ${run.partition.partition} (${run.partition.queue}) and merged them${run.partition.merge.evaluation ? `: test PSNR ${run.partition.merge.evaluation.psnr.toFixed(2)} dB, SSIM ${run.partition.merge.evaluation.ssim.toFixed(4)}` : ''}`
        : `${run.id} ${run.status}: ${blocks.filter((b) => b.status === 'finished').length} of ${blocks.length} blocks finished. Run the same command to continue.`,
    );
    return run.status === 'finished' ? EXIT.ok : EXIT.interrupted;
  } finally {
    gpu.destroy();
  }
}
