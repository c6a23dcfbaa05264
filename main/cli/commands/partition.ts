import path from 'node:path';
import { resolveParams } from '../../../shared/params/index.js';
import { isProjectFile, projectParamDefs } from '../../../shared/project/manifest.js';
import type { Partition } from '../../../shared/project/partition.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { addPartition, projectPartition, removePartition } from '../../engine/partition/partitions.js';
import { planPartition, type Plan } from '../../engine/partition/plan.js';
import { partitionScene } from '../../engine/partition/scene.js';
import { Project } from '../../engine/project/project.js';
import { definedParams } from '../../engine/project/train-run.js';
import { trainParamValues } from '../../engine/train/trainer-config.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';

/** Splats a block is planned with when --splats is not given: this many per SfM point in its bounds. */
const SPLATS_PER_POINT = 100;
const GIB = 2 ** 30;

/** A number option, refused by name (bad input, exit 3) when it is not one. */
function numberOption(file: string, options: Record<string, unknown>, flag: string): number | undefined {
  const raw = options[flag];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (String(raw).trim() === '' || !Number.isFinite(value)) throw badInput(file, `--${flag} must be a number (got "${String(raw)}")`);
  return value;
}

function describeBlocks(partition: Partition): string {
  const f = (x: number) => x.toFixed(2);
  return [
    `${partition.id}: ${partition.blocks.length} blocks (${partition.method}, overlap ${partition.overlap})`,
    ...partition.blocks.map((b) => `  ${b.id}  ${String(b.cameras.length).padStart(4)} cameras  ${String(b.points).padStart(8)} points  core u ${f(b.core.min[0])}..${f(b.core.max[0])} v ${f(b.core.min[1])}..${f(b.core.max[1])}  bounds u ${f(b.bounds.min[0])}..${f(b.bounds.max[0])} v ${f(b.bounds.min[1])}..${f(b.bounds.max[1])}`),
  ].join('\n');
}

function describePlan(plan: Plan, workers: number): string {
  const h = (s: number) => (s >= 3600 ? `${(s / 3600).toFixed(2)} h` : s >= 60 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(1)} s`);
  return [
    `plan on ${workers} worker(s), per-step costs from ${plan.costs.source}:`,
    ...plan.blocks.map((b) => `  ${b.id}  ${b.splats.toLocaleString()} splats  ${(b.stepS * 1000).toFixed(2)} ms/step  ${h(b.timeS)}  ${(b.memoryBytes / GIB).toFixed(2)} GiB${b.fits ? '' : ' (does not fit)'}  worker ${b.worker + 1}`),
    `  blocks ${h(plan.blocksS)} (one worker: ${h(plan.serialS)}), merge ${h(plan.mergeS)}, total ${h(plan.totalS)}; bottleneck: ${plan.bottleneck}`,
    ...plan.notes.map((n) => `  note: ${n}`),
  ].join('\n');
}

function planJson(plan: Plan): Record<string, unknown> {
  return {
    source: plan.costs.source,
    blocks: plan.blocks.map((b) => ({ id: b.id, cameras: b.cameras, splats: b.splats, step_s: b.stepS, time_s: b.timeS, memory_bytes: Math.round(b.memoryBytes), fits: b.fits, worker: b.worker + 1 })),
    blocks_s: plan.blocksS, serial_s: plan.serialS, merge_s: plan.mergeS, total_s: plan.totalS, storage_bytes: Math.round(plan.storageBytes), bottleneck: plan.bottleneck, notes: plan.notes,
  };
}

/**
 * `partition p.argo --blocks N | --block-size S [--method grid|kd] [--overlap F] [--plan --workers M]`
 * splits the project's scene into blocks (main/engine/partition/) and keeps the partition in the
 * project; `--list` prints the newest, `--remove ID` removes one. docs/scale.md.
 */
export const partitionCommand: CommandSpec = {
  name: 'partition',
  summary: "split a project's scene into overlapping blocks on its ground plane for partitioned training (and plan their time and memory on M workers)",
  usage: 'partition <file.argo> --blocks N | --block-size S [--method grid|kd] [--overlap F] [--plan --workers M [--splats N] [--gpu-gib G] [--storage-gbps B]] | --list | --remove ID [--json]',
  options: [
    JSON_OPTION,
    { flag: 'blocks', type: 'string', valueName: 'N', help: 'split into N blocks (grid: the factor pair closest to square cells; kd: balanced by point count)' },
    { flag: 'block-size', type: 'string', valueName: 'S', help: "split into blocks whose core's longer side is at most S ground units" },
    { flag: 'method', type: 'string', valueName: 'grid|kd', choices: ['grid', 'kd'], help: 'grid: equal cells (default); kd: balanced k-d splits of the SfM points' },
    { flag: 'overlap', type: 'string', valueName: 'F', help: "fraction of a core's size each block's bounds add on every side (default 0.2)" },
    { flag: 'plan', type: 'bool', help: 'also estimate time and memory per block and in total for --workers M (docs/scale.md states the model)' },
    { flag: 'workers', type: 'string', valueName: 'M', help: 'workers (GPUs) the plan assumes (default 1)' },
    { flag: 'splats', type: 'string', valueName: 'N', help: `splats the plan expects in the trained scene (default ${SPLATS_PER_POINT} per SfM point)` },
    { flag: 'gpu-gib', type: 'string', valueName: 'G', help: 'GPU memory per worker for the plan (default 139, an H200)' },
    { flag: 'storage-gbps', type: 'string', valueName: 'B', help: 'shared storage bandwidth in GB/s for the plan (default 1)' },
    { flag: 'list', type: 'bool', help: "print the project's newest partition" },
    { flag: 'remove', type: 'string', valueName: 'ID', help: 'remove a partition (refused while a run was trained on it)' },
  ],
  async run({ positionals, options, out, cwd }) {
    const [input, ...extra] = positionals;
    if (!input || extra.length || !isProjectFile(input)) throw new UsageError('partition needs exactly one project file (.argo)');
    const file = path.resolve(cwd, input);
    const project = await Project.open(file);
    if (options.remove !== undefined) {
      await removePartition(project, String(options.remove));
      out.result({ project: file, removed: String(options.remove) }, `removed ${String(options.remove)} from ${file}`);
      return;
    }
    let partition: Partition;
    const scene = options.list ? undefined : await partitionScene(project);
    if (options.list) partition = projectPartition(project);
    else {
      const blocks = numberOption(file, options, 'blocks');
      const blockSize = numberOption(file, options, 'block-size');
      const overlap = numberOption(file, options, 'overlap') ?? 0.2;
      partition = await addPartition(project, { blocks, blockSize, method: (options.method as 'grid' | 'kd' | undefined) ?? 'grid', overlap }, scene);
    }
    const payload: Record<string, unknown> = { project: file, partition };
    let human = describeBlocks(partition);
    if (options.plan) {
      const workers = numberOption(file, options, 'workers') ?? 1;
      if (!(Number.isInteger(workers) && workers >= 1)) throw badInput(file, `--workers must be a whole number >= 1 (got ${workers})`);
      const loaded = scene ?? (await partitionScene(project));
      const totalPoints = loaded.points.length / 3;
      const splats = numberOption(file, options, 'splats') ?? totalPoints * SPLATS_PER_POINT;
      if (!(splats > 0)) throw badInput(file, `--splats must be positive (got ${splats})`);
      const values = trainParamValues(resolveParams(projectParamDefs(), definedParams(project.manifest.params)));
      const downscale = values['train.downscale'];
      const pixelsOf = (w: number, h: number) => Math.round(w / downscale) * Math.round(h / downscale);
      const pixels = Math.max(...loaded.train.map((c) => pixelsOf(c.camera.width, c.camera.height)));
      const plan = planPartition(
        partition.blocks.map((b) => ({ id: b.id, cameras: b.cameras.length, splats: Math.ceil((splats * b.points) / totalPoints), pixels })),
        {
          workers, iterations: values['train.iterations'], checkpointEvery: values['train.checkpointEvery'], fineTuneSteps: 0,
          gpuBytes: (numberOption(file, options, 'gpu-gib') ?? 139) * GIB, storageBytesPerS: (numberOption(file, options, 'storage-gbps') ?? 1) * 1e9,
          mergedSplats: splats, pixels, cameras: loaded.train.length,
        },
      );
      payload.plan = planJson(plan);
      human += `\n${describePlan(plan, workers)}`;
    }
    out.result(payload, human);
  },
};
