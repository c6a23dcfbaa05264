/**
 * `train`: a project (`train <file.argo>`, train-project.ts), or a dataset / the sample scene
 * with `--out DIR`. A dataset trains in a scratch project kept in DIR (`DIR/train.argo` and its
 * data folder), through the same project run as everything else: its checkpoints, resume and
 * records are the project's; `--resume` continues its newest run. DIR also gets splats.ply and
 * metrics.json, as before projects existed.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { paramsForCommand, PRESETS } from '../../../shared/params/index.js';
import { isProjectFile, PROJECT_EXTENSION } from '../../../shared/project/manifest.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { readPly } from '../../engine/formats/ply.js';
import { createSampleProject, importDataset, projectParamsOf } from '../../engine/project/import.js';
import { Project } from '../../engine/project/project.js';
import type { TrainingSource } from '../../engine/train/job.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandContext, type CommandSpec } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { benchStamp } from '../bench-result.js';
import { metricsOf, presetOf, PRESET_OPTION, trainingSourceOf, trainProjectFromCli, writeTrainOutputs } from '../training.js';
import { trainProjectCommand } from './train-project.js';

/** The scratch project's file name inside `--out DIR`. */
export const SCRATCH_PROJECT = `train${PROJECT_EXTENSION}`;

function describeSource(source: TrainingSource): string {
  return source.kind === 'sample' ? 'the sample scene' : source.path;
}

/**
 * The scratch project of DIR: made on first use; reused when it trains the same source (new
 * runs take this command's flags as the project's parameters); refused when it trains another.
 */
async function scratchProject(dir: string, source: TrainingSource, context: CommandContext, resume: boolean): Promise<Project> {
  const file = path.join(dir, SCRATCH_PROJECT);
  const params = context.params;
  if (!existsSync(file)) {
    return source.kind === 'sample' ? createSampleProject(file, params) : (await importDataset(source.path, file, { params, verifyImages: false })).project;
  }
  const project = await Project.open(file);
  const trains = await project.trainingSource();
  const same = trains.kind === source.kind && (trains.kind === 'sample' || (source.kind === 'dataset' && path.resolve(trains.path) === path.resolve(source.path)));
  if (!same) throw new ArgonautError('bad_input', `${file}: this folder holds the training of ${describeSource(trains)}, not ${describeSource(source)}; choose another --out`, { file });
  if (!resume) {
    project.manifest.params = projectParamsOf(params);
    await project.save();
  }
  return project;
}

export const trainCommand: CommandSpec = {
  name: 'train',
  summary: 'train Gaussian splats on a project (resumes its newest run), a dataset (COLMAP, transforms.json, NeRF-synthetic) or the built-in sample scene',
  usage: `train <file.argo> [--out DIR] | train <dataset-dir|--sample> --out DIR  [--iterations N] [--checkpoint-every N] [--preset ${PRESETS.join('|')}] [--json] ...`,
  options: [
    JSON_OPTION,
    { flag: 'out', type: 'string', help: 'output folder: splats.ply (standard 3DGS PLY) and metrics.json (a project keeps its own in its data folder too)', valueName: 'dir' },
    { flag: 'new-run', type: 'bool', help: 'projects: start a new run even when the newest one can continue' },
    { flag: 'sample', type: 'bool', help: 'train on the built-in procedural sample scene (no data needed)' },
    { flag: 'resume', type: 'bool', help: `continue the newest run of DIR/${SCRATCH_PROJECT} from its newest checkpoint (Ctrl+C saves one)` },
    { flag: 'init', type: 'string', help: 'start from the splats of this PLY (e.g. an earlier run) instead of initializing', valueName: 'splats.ply' },
    PRESET_OPTION,
    { flag: 'partition', type: 'string', help: 'projects: train as the blocks of this partition (partition-NNN), then merge them', valueName: 'id' },
    { flag: 'queue', type: 'string', help: 'with --partition: enqueue the blocks for `worker` processes on this Redis (redis://[:password@]host:port, rediss:// for TLS) and wait', valueName: 'url' },
    { flag: 'merge-fine-tune', type: 'int', help: 'with --partition: steps of a joint fine-tune over all cameras after merging (default 0)', valueName: 'n' },
  ],
  params: () => paramsForCommand('train').filter((p) => !p.commands.includes('*')),
  async run(context) {
    if (isProjectFile(context.positionals[0])) return trainProjectCommand(context);
    if (context.options['new-run']) throw new UsageError('--new-run applies to projects (train <file.argo>)');
    if (context.options.partition || context.options.queue) throw new UsageError('--partition and --queue apply to projects (train <file.argo>)');
    const outDir = context.options.out as string | undefined;
    if (!outDir) throw new UsageError('train needs --out DIR');
    const source = trainingSourceOf(context);
    presetOf(context); // checked before anything is written
    const resume = Boolean(context.options.resume);
    const dir = path.resolve(context.cwd, outDir);
    try {
      await mkdir(dir, { recursive: true });
    } catch (error) {
      throw new ArgonautError('bad_input', `${dir}: cannot create the output folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    const initial = context.options.init ? await readPly(path.resolve(context.cwd, context.options.init as string)) : undefined;
    const project = await scratchProject(dir, source, context, resume);
    const { result, profile, gpu } = await trainProjectFromCli(context, project, { newRun: !resume, initial });
    const metrics = {
      ...metricsOf(result),
      ...benchStamp({ info: gpu.info }),
      dataset: result.data.name,
      cancelled: result.cancelled,
      ...(result.resumedFrom > 0 ? { resumed_from: result.resumedFrom } : {}),
      ...(result.lastCheckpoint ? { checkpoint: result.lastCheckpoint } : {}),
      evaluations: [result.evaluation],
      ...(profile ? { profile } : {}),
    };
    await writeTrainOutputs(dir, result.splats, metrics);
    context.out.result(
      { ...metrics, out: dir, splats_ply: path.join(dir, 'splats.ply'), project: project.file, run: result.run.id },
      `${result.cancelled ? `interrupted at step ${result.steps} (checkpoint ${result.lastCheckpoint}; continue with --resume):` : 'trained'} ${result.steps} steps in ${result.trainS.toFixed(1)} s: PSNR ${result.evaluation.psnr.toFixed(2)} dB, SSIM ${result.evaluation.ssim.toFixed(4)}, ${result.splatCount.toLocaleString()} splats -> ${dir}`,
    );
    if (result.cancelled) return EXIT.interrupted;
  },
};
