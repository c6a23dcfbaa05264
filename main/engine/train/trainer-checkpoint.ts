/**
 * The run's side of a checkpoint (checkpoint.ts is the file): what it reads from the GPU parts
 * (the model's parameters and Adam moments, the densifier's statistics, the colour models, camera
 * refinement) and where the run stands (step, generator, view order, counters, the memory cap);
 * on resume, the checks that the checkpoint continues this data and configuration, and the state
 * put back into a trainer created from its splats. Exact resume: the run continues bit-identical
 * to one never interrupted.
 */
import { badInput } from '../../../shared/rpc/errors.js';
import { readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { Appearance } from './appearance.js';
import type { CameraRefineState, CameraRefiner } from './camera-refine.js';
import { checkpointFloats, checkpointSplats, type Checkpoint, type CheckpointHeader } from './checkpoint.js';
import type { TrainingData } from './data.js';
import type { DensifyStrategy } from './densify-strategy.js';
import type { MemoryCap } from './memory-growth.js';
import type { Model } from './model.js';
import type { TrainerConfig } from './trainer-config.js';

/** Where a run stands besides its GPU state: what the header holds and a resume puts back. */
export interface RunPosition {
  step: number;
  /** The generator's state (image order, densification noise). */
  random: number;
  order: number[];
  orderPosition: number;
  nonFiniteSkipped: number;
}

/** The parts a checkpoint reads and a resume writes back. */
export interface CheckpointParts {
  ctx: GpuContext;
  model: Model;
  densify: DensifyStrategy;
  appearance: Appearance | undefined;
  cameraRefiner: CameraRefiner | undefined;
}

/** A checkpoint as the trainer makes it: the header's run fields and the GPU state's blobs. */
export interface CheckpointState {
  header: Omit<CheckpointHeader, 'blobs' | 'format' | 'version' | 'savedAt'>;
  blobs: { name: string; data: Uint8Array }[];
}

/** What the header records of the run besides where it stands. */
export interface CheckpointRun {
  data: TrainingData;
  config: TrainerConfig;
  trainViews: number;
  memoryCap: MemoryCap | undefined;
}

/**
 * Everything exact resume needs, read back from the GPU (a sync point: the trainer settles its
 * readbacks first), and the splat count read back with it.
 */
export async function checkpointOf(parts: CheckpointParts, position: RunPosition, run: CheckpointRun): Promise<{ count: number; state: CheckpointState }> {
  const { ctx, model, densify, appearance, cameraRefiner } = parts;
  await cameraRefiner?.settle();
  const { device } = ctx;
  const count = new Uint32Array(await readBuffer(device, model.splats.countBuffer, 4))[0];
  const blobs = [...(await model.checkpointBlobs(device, count)), ...(await densify.checkpointBlobs(count)), ...((await appearance?.checkpointBlobs()) ?? [])];
  const header = {
    step: position.step,
    splatCount: count,
    shDegree: model.splats.shDegree,
    random: position.random,
    order: position.order,
    orderPosition: position.orderPosition,
    nonFiniteSkipped: position.nonFiniteSkipped,
    ...(cameraRefiner ? { cameraRefine: cameraRefiner.state() } : {}),
    ...(run.memoryCap ? { memoryCap: run.memoryCap } : {}),
    data: { name: run.data.name, views: run.data.views.length, train: run.trainViews },
    config: run.config,
  };
  return { count, state: { header, blobs } };
}

/**
 * Checks that `checkpoint` continues a run on `data` with `config` (bad_input naming `file`
 * otherwise), before anything is built: its blobs' reader and what Trainer.create resumes from.
 */
export function resumePlan(checkpoint: Checkpoint, data: TrainingData, config: TrainerConfig, file: string) {
  const h = checkpoint.header;
  const train = data.views.filter((v) => v.split === 'train').length;
  if (h.data.views !== data.views.length || h.data.train !== train) {
    throw badInput(file, `the checkpoint was made on ${h.data.views} views (${h.data.train} training), this dataset has ${data.views.length} (${train})`);
  }
  if (h.shDegree !== config.shDegree) throw badInput(file, `the checkpoint has SH degree ${h.shDegree}, the run asks for ${config.shDegree}`);
  const blob = checkpointFloats(checkpoint, file);
  // a run GPU memory capped resumes at the capacity it stopped at, capped the same: exact resume
  const memoryCap = h.memoryCap as MemoryCap | undefined;
  return { blob, options: { initial: checkpointSplats(checkpoint, file), loadFirst: h.order.slice(h.orderPosition), ...(memoryCap ? { memoryCap } : {}) } };
}

/** Puts the checkpoint's GPU state and camera refinement back (all of it submitted and done); where the run stood. */
export async function restoreCheckpoint(parts: CheckpointParts, checkpoint: Checkpoint, blob: ReturnType<typeof checkpointFloats>, file: string): Promise<RunPosition> {
  const h = checkpoint.header;
  const n = h.splatCount;
  const q = parts.ctx.device.queue;
  parts.model.restoreMoments(q, n, blob);
  parts.densify.restore(checkpoint.blobs, n, blob);
  parts.appearance?.restore(blob);
  if (parts.cameraRefiner) {
    if (!h.cameraRefine) throw badInput(file, 'the checkpoint has no camera refinement state, the run refines cameras');
    parts.cameraRefiner.restore(h.cameraRefine as CameraRefineState, (message) => badInput(file, message));
  }
  await q.onSubmittedWorkDone();
  return { step: h.step, random: h.random >>> 0, order: [...h.order], orderPosition: h.orderPosition, nonFiniteSkipped: h.nonFiniteSkipped };
}
