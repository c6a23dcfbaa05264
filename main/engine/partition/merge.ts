/**
 * Merging a partitioned run (docs/scale.md): every block's trained splats cropped to its core
 * (crop.ts), joined, optionally fine-tuned together over all cameras for a few steps (the same
 * job as any run, continuing the joined splats: trainer-config.ts warmStartConfig), written as
 * the run's splats (atomically: a crash leaves the old file or the new one), scored on the
 * project's held-out views by a whole run's evaluation (train/evaluate-splats.ts; the fine-tune's
 * own final evaluation when there is one), and the seams measured on the test views (seams.ts).
 * The run's record (`run.partition.merge`, `run.outputs`, `run.evaluations`) is saved at each
 * state change.
 */
import path from 'node:path';
import type { TrainEventOptions } from '../../../shared/contract/train-events.js';
import { recordEvaluation, type ProjectRun } from '../../../shared/project/manifest.js';
import type { Partition, PartitionedRun } from '../../../shared/project/partition.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { makeFolder } from '../formats/atomic-file.js';
import { readPly, writePly } from '../formats/ply.js';
import type { GpuContext } from '../gpu/context.js';
import type { Project } from '../project/project.js';
import { definedParams } from '../project/train-run.js';
import { trainingDataFromPath } from '../train/dataset-data.js';
import { evaluateSplats } from '../train/evaluate-splats.js';
import { runTrainingJob, type TrainJobResult } from '../train/job.js';
import type { Evaluation } from '../train/trainer.js';
import { trainParamValues } from '../train/trainer-config.js';
import { cropToCore, joinSplats } from './crop.js';
import { measureSeams, type SeamMeasure } from './seams.js';

export interface MergeOptions extends TrainEventOptions {
  /** Steps of the joint fine-tune over all cameras (0: none). */
  fineTuneSteps: number;
  /** Pixels of a projected border that count as near it (default 4). */
  borderPx?: number;
}

export interface MergeResult {
  splats: SplatSet;
  seams?: SeamMeasure;
  /** The merged splats on the held-out views (a dataset's; the sample scene has no partition). */
  evaluation?: Evaluation;
  splatsFile: string;
  /** Per block: splats trained, and kept in its core. */
  blocks: { block: string; trained: number; kept: number }[];
  fineTune?: TrainJobResult;
}

/** The partition and the partitioned record of a run, refused by name when it has none. */
export function partitionOfRun(project: Project, run: ProjectRun): { partition: Partition; record: PartitionedRun } {
  const record = run.partition;
  if (!record) throw badInput(project.file, `${run.id} was not trained as blocks (it has no partition)`);
  const partition = project.manifest.partitions.find((p) => p.id === record.partition);
  if (!partition) throw badInput(project.file, `${run.id} was trained on ${record.partition}, which the project no longer has`);
  return { partition, record };
}

export async function mergeBlocks(ctx: GpuContext, project: Project, run: ProjectRun, options: MergeOptions): Promise<MergeResult> {
  const { partition, record } = partitionOfRun(project, run);
  if (!(Number.isInteger(options.fineTuneSteps) && options.fineTuneSteps >= 0)) throw badInput(project.file, `the merge's fine-tune steps must be a whole number >= 0 (got ${options.fineTuneSteps})`);
  const unfinished = record.blocks.filter((b) => b.status !== 'finished' || !b.splats);
  if (unfinished.length) throw badInput(project.file, `${run.id} cannot merge yet: ${unfinished.map((b) => `${b.block} is ${b.status}${b.status === 'finished' ? ' without splats' : ''}`).join(', ')}`);
  const emit = (message: string) => void options.onEvent?.({ type: 'log', level: 'info', message });
  const save = async (status: PartitionedRun['merge']['status']) => {
    record.merge = { ...record.merge, status, fineTuneSteps: options.fineTuneSteps };
    run.updatedAt = new Date().toISOString();
    await project.save();
  };
  await save('running');
  await options.onEvent?.({ type: 'merge', status: 'running' });
  try {
    const cropped: SplatSet[] = [];
    const blocks: MergeResult['blocks'] = [];
    for (const [index, block] of partition.blocks.entries()) {
      const blockRun = record.blocks.find((b) => b.block === block.id);
      if (!blockRun?.splats) throw badInput(project.file, `${run.id} has no trained splats for ${block.id}`);
      const trained = await readPly(project.resolve(blockRun.splats));
      const kept = cropToCore(trained, partition, index);
      cropped.push(kept);
      blocks.push({ block: block.id, trained: trained.count, kept: kept.count });
      emit(`${block.id}: ${kept.count} of ${trained.count} splats in its core`);
    }
    let splats = joinSplats(cropped);
    const source = await project.trainingSource();
    let fineTune: TrainJobResult | undefined;
    if (options.fineTuneSteps > 0) {
      emit(`joint fine-tune of ${splats.count} splats over all cameras, ${options.fineTuneSteps} steps`);
      fineTune = await runTrainingJob(ctx, {
        source,
        params: { ...run.params, 'train.iterations': options.fineTuneSteps },
        initial: splats,
        warmStart: true,
        signal: options.signal,
        onEvent: options.onEvent,
      });
      splats = fineTune.splats;
    }
    const splatsFile = path.join(project.runDir(run.id), 'splats.ply');
    await makeFolder(path.dirname(splatsFile));
    await writePly(splatsFile, splats);
    run.outputs = { ...run.outputs, splats: project.relative(splatsFile), splatCount: splats.count };
    let seams: SeamMeasure | undefined;
    let evaluation: Evaluation | undefined;
    if (source.kind === 'dataset') {
      // The criterion a partitioned run is held to (docs/scale.md): its test PSNR against the same scene trained whole.
      evaluation = { ...(fineTune?.evaluation ?? (await evaluateSplats(ctx, { source, params: definedParams(run.params), splats, warn: (m) => void options.onEvent?.({ type: 'log', level: 'warn', message: m }) }))), step: run.step };
      recordEvaluation(run.evaluations, evaluation);
      await options.onEvent?.({ type: 'evaluation', ...evaluation });
      emit(`merged: test PSNR ${evaluation.psnr.toFixed(2)} dB, SSIM ${evaluation.ssim.toFixed(4)}, colour-corrected PSNR ${evaluation.ccPsnr.toFixed(2)} dB (${evaluation.views.length} views)`);
      const values = trainParamValues(run.params);
      const data = await trainingDataFromPath(source.path, { downscale: values['train.downscale'], background: values['train.background'], masks: values['train.masks'], filter: (v) => v.split === 'test' });
      seams = await measureSeams(ctx, splats, data, partition, { borderPx: options.borderPx ?? 4, antialiased: values['train.antialiased'] });
    }
    record.merge = {
      status: 'finished', fineTuneSteps: options.fineTuneSteps, splatCount: splats.count,
      ...(seams ? { seams: { nearPsnr: seams.nearPsnr, awayPsnr: seams.awayPsnr, borderPx: seams.borderPx } } : {}),
      ...(evaluation ? { evaluation: { psnr: evaluation.psnr, ssim: evaluation.ssim, ccPsnr: evaluation.ccPsnr, views: evaluation.views.length } } : {}),
    };
    if (seams) emit(`seams: PSNR ${seams.nearPsnr.toFixed(2)} dB within ${seams.borderPx} px of block borders, ${seams.awayPsnr.toFixed(2)} dB away (${seams.views} views)`);
    run.updatedAt = new Date().toISOString();
    await project.save();
    await options.onEvent?.({ type: 'merge', status: 'finished', splats: splatsFile, splatCount: splats.count });
    return { splats, seams, evaluation, splatsFile, blocks, fineTune };
  } catch (error) {
    record.merge = { ...record.merge, status: 'failed' };
    await project.save().catch(() => undefined);
    await options.onEvent?.({ type: 'merge', status: 'failed' });
    throw error;
  }
}
