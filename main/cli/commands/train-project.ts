/**
 * `train <file.argo>`: trains a project, continuing its newest run from its newest checkpoint
 * (the JSON result's `resumed_from` is the step it started from, 0 for a fresh run). Ctrl+C saves
 * a checkpoint and exits 130; `--out DIR` also writes splats.ply and metrics.json there.
 */
import path from 'node:path';
import { makeFolder } from '../../engine/formats/atomic-file.js';
import { Project } from '../../engine/project/project.js';
import { UsageError } from '../args.js';
import { benchStamp } from '../bench-result.js';
import type { CommandContext } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { metricsOf, trainProjectFromCli, writeTrainOutputs } from '../training.js';
import { trainPartitionedCommand } from './train-partitioned.js';

export async function trainProjectCommand(context: CommandContext): Promise<number | void> {
  const { out, options } = context;
  const [input, ...extra] = context.positionals;
  if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  if (options.sample) throw new UsageError('--sample takes no project (a project knows what it trains on)');
  if (options.init) throw new UsageError('--init starts a dataset run from a PLY; a project continues its own runs (train <dataset> --init, or import the PLY as a project)');
  const project = await Project.open(path.resolve(context.cwd, input));
  if (options.partition) return trainPartitionedCommand(context, project);
  if (options.queue || options['merge-fine-tune'] !== undefined) throw new UsageError('--queue and --merge-fine-tune train the blocks of a partition: give --partition ID');
  const outDir = options.out ? path.resolve(context.cwd, options.out as string) : undefined;
  if (outDir) {
    await makeFolder(outDir);
  }
  const { result, profile, gpu } = await trainProjectFromCli(context, project, { newRun: Boolean(options['new-run']) });
  const latest = result.run.latestCheckpoint;
  const metrics = {
    ...metricsOf(result),
    ...benchStamp({ info: gpu.info }),
    dataset: result.data.name,
    project: project.file,
    run: result.run.id,
    status: result.run.status,
    resumed_from: result.resumedFrom,
    cancelled: result.cancelled,
    ...(latest ? { checkpoint: project.resolve(latest.file), checkpoint_step: latest.step } : {}),
    ...(result.splatsFile ? { splats_ply: result.splatsFile } : {}),
    evaluations: [result.evaluation],
    ...(profile ? { profile } : {}),
  };
  if (outDir) await writeTrainOutputs(outDir, result.splats, metrics);
  out.result(
    { ...metrics, ...(outDir ? { out: outDir } : {}) },
    result.cancelled
      ? `interrupted at step ${result.steps} of ${result.run.total}; checkpoint saved (${latest ? project.resolve(latest.file) : 'none'}). Run the same command to continue.`
      : `trained ${project.manifest.name} ${result.run.id}: ${result.steps} steps (from ${result.resumedFrom}) in ${result.trainS.toFixed(1)} s: PSNR ${result.evaluation.psnr.toFixed(2)} dB, SSIM ${result.evaluation.ssim.toFixed(4)}, ${result.splatCount.toLocaleString()} splats -> ${result.splatsFile}`,
  );
  return result.cancelled ? EXIT.interrupted : EXIT.ok;
}
