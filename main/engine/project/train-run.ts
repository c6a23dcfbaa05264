/**
 * Training a project: the CLI's `train p.argo` and the engine host's jobs both come here.
 *
 * The newest run continues when it can (not finished, or `newRun`), from its newest complete
 * checkpoint and with its own parameters, so the result is the one an uninterrupted run gives
 * (exact resume). Every state change is saved before training goes on: the run's status when it
 * starts, each checkpoint (file and step), each evaluation, and the end (finished with its PLY,
 * or interrupted / stopped / paused / failed). A crash loses at most the steps since the newest
 * checkpoint and the metrics recorded since the last save.
 *
 * The run recorder (`recordRunEvent`) is where the job's events become the run's record; every
 * event then goes on, unchanged, to the caller's `onEvent` (the CLI's printer, the job manager).
 */
import path from 'node:path';
import { resolveParams, type ParamValue, type PresetName } from '../../../shared/params/index.js';
import { trainParamValues } from '../train/trainer-config.js';
import type { TrainEvent, TrainEventOptions } from '../../../shared/contract/train-events.js';
import { trainMetricsOf } from '../../../shared/contract/train-metrics.js';
import { appendMetrics, projectParamDefs, recordEvaluation, type ProjectRun, type RunStatus } from '../../../shared/project/manifest.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { ArgonautError, toErrorEnvelope } from '../../../shared/rpc/errors.js';
import { readFile } from 'node:fs/promises';
import { makeFolder, removeStaleTemps, writeFileAtomic } from '../formats/atomic-file.js';
import { isStartRefusal } from '../train/memory-refusal.js';
import { writePly } from '../formats/ply.js';
import { writeRefinedCameras } from './refined-cameras.js';
import type { GpuContext } from '../gpu/context.js';
import { runTrainingJob, type StepControl, type TrainJobResult } from '../train/job.js';
import { editedTrainingStart } from './edit-training.js';
import { carryTransform, closeEditList } from './edits.js';
import { acquireTrainingLock } from './lock.js';
import { newestCompleteCheckpoint } from './newest-checkpoint.js';

export { newestCompleteCheckpoint } from './newest-checkpoint.js';
import type { Project } from './project.js';

/** Parameters that may differ when a run continues: they do not change what is computed. */
const RESUME_SAFE = new Set(['train.checkpointEvery', 'train.evalEvery']);

/** What a `between` hook of a project run may do besides the job's own controls. */
export interface ProjectStepControl extends StepControl {
  /** Records the run's status (paused while a job waits, running again) and saves the manifest. */
  setStatus(status: RunStatus): Promise<void>;
}

/** One option bag: `{ signal, onEvent }` and what only a project run has. */
export interface ProjectTrainOptions extends TrainEventOptions {
  /** Explicit parameters (CLI flags, the GUI's panel); they win over the project's own. */
  overrides?: Readonly<Record<string, ParamValue>>;
  preset?: PresetName;
  env?: NodeJS.ProcessEnv;
  /** Start a new run even when the newest can continue. */
  newRun?: boolean;
  /** When overrides differ from a continuing run's parameters: refuse (CLI) or ignore them (GUI, which always sends all). */
  onParamConflict?: 'refuse' | 'ignore';
  /** Checkpoints kept per run (oldest removed first). Default 3. */
  keep?: number;
  /** What a cancelled run becomes (asked when it stops): 'interrupted' by default. */
  cancelStatus?: () => RunStatus;
  /** Awaited before every step (pause, live snapshots); its time is not training time. */
  between?: (control: ProjectStepControl) => Promise<void>;
  profileEvery?: number;
  /** A new run starts from these splats (an earlier result) instead of initializing. */
  initial?: SplatSet;
}

export interface ProjectTrainResult extends TrainJobResult {
  run: ProjectRun;
  /** The step training started from (0 for a fresh run). */
  resumedFrom: number;
  /** The run's PLY when it finished. */
  splatsFile?: string;
}

function describeConflicts(run: ProjectRun, wanted: Record<string, ParamValue>): string[] {
  return Object.entries(wanted)
    .filter(([k, v]) => !RESUME_SAFE.has(k) && run.params[k] !== undefined && run.params[k] !== v)
    .map(([k, v]) => `${k} ${String(run.params[k])} (asked ${String(v)})`);
}

/** A parameter map without absent (undefined) entries. */
export function definedParams(params: Readonly<Record<string, ParamValue | undefined>>): Record<string, ParamValue> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, ParamValue] => e[1] !== undefined));
}

/**
 * Records one of the run's events in the run (steps, metrics, evaluations, checkpoints); saves the
 * manifest where a crash must not lose it (checkpoints: awaited before training goes on).
 */
export async function recordRunEvent(project: Project, run: ProjectRun, event: TrainEvent, warn: (m: string) => void): Promise<void> {
  const touch = () => {
    run.updatedAt = new Date().toISOString();
  };
  if (event.type === 'progress' && event.stage === 'train') {
    run.step = event.step;
    appendMetrics(run.metrics, { step: event.step, ...trainMetricsOf(event) });
  } else if (event.type === 'evaluation') {
    recordEvaluation(run.evaluations, event);
    touch();
    void project.save().catch((error: unknown) => warn(`could not save ${project.file}: ${(error as Error).message}`));
  } else if (event.type === 'checkpoint') {
    run.latestCheckpoint = { file: project.relative(event.file), step: event.step, savedAt: new Date().toISOString() };
    run.step = event.step;
    touch();
    await project.save();
  }
}

export async function trainProject(ctx: GpuContext, project: Project, options: ProjectTrainOptions = {}): Promise<ProjectTrainResult> {
  const emit = async (event: TrainEvent) => options.onEvent?.(event);
  const warn = (message: string) => void emit({ type: 'log', level: 'warn', message });
  const release = await acquireTrainingLock(project);
  // A start refused for GPU memory leaves the manifest as it was, byte for byte (memory-refusal.ts).
  const manifestBefore = { bytes: await readFile(project.file).catch(() => undefined), manifest: structuredClone(project.manifest) };
  try {
    const source = await project.trainingSource();
    const overrides = Object.fromEntries(Object.entries(options.overrides ?? {}).filter(([k]) => k.startsWith('train.')));
    const latest = project.latestRun();
    // Edits on the newest splats: a new run starts from the edited splats (edit-training.ts).
    const edited = options.initial ? undefined : await editedTrainingStart(project, warn);
    let run: ProjectRun;
    let fresh = false;
    if (latest && latest.status !== 'finished' && !options.newRun && !edited) {
      run = latest;
      const conflicts = describeConflicts(run, overrides);
      if (conflicts.length && options.onParamConflict !== 'ignore') {
        throw new ArgonautError('invalid_argument', `${project.file}: ${run.id} continues with its own parameters (${conflicts.join(', ')}); start a new run (--new-run) to change them`);
      }
      for (const key of RESUME_SAFE) if (overrides[key] !== undefined) run.params[key] = overrides[key];
    } else {
      const params = resolveParams(projectParamDefs(), definedParams({ ...project.manifest.params, ...overrides }), { env: options.env ?? process.env, preset: options.preset });
      const id = project.nextRunId();
      const now = new Date().toISOString();
      run = {
        id, createdAt: now, updatedAt: now, params, status: 'running', step: 0, total: trainParamValues(params)['train.iterations'], resumes: [],
        checkpointsDir: project.relative(path.join(project.runDir(id), 'checkpoints')), metrics: [], evaluations: [], outputs: {},
      };
      if (edited) {
        run.startedFrom = { run: edited.list.base.run, step: edited.list.base.step, operations: edited.list.operations.length, splats: edited.splats.count };
        // The run's splats become a new base: the list that made its start is kept in the history.
        closeEditList(project);
        await emit({ type: 'log', level: 'info', message: `${id} starts from the edited splats of ${edited.list.base.run} step ${edited.list.base.step} (${edited.list.operations.length} edits, ${edited.splats.count} splats)` });
      }
      project.manifest.runs.push(run);
      fresh = true;
    }
    const initial = options.initial ?? edited?.splats;
    const checkpointsDir = project.resolve(run.checkpointsDir);
    for (const dir of [checkpointsDir, project.dir]) {
      for (const name of await removeStaleTemps(dir)) await emit({ type: 'log', level: 'info', message: `removed ${path.join(dir, name)} (a write interrupted by a crash)` });
    }
    // The folder is the truth, not the manifest: a crash during the manifest's save leaves a
    // checkpoint the manifest does not list yet.
    const from = fresh ? undefined : await newestCompleteCheckpoint(checkpointsDir, warn);
    if (!from && run.step > 0) warn(`${run.id}: no complete checkpoint in ${checkpointsDir}; it starts over from step 0`);
    const resumedFrom = from?.step ?? 0;
    if (from) run.resumes.push(from.step);
    run.step = resumedFrom;
    run.status = 'running';
    delete run.error;
    run.updatedAt = new Date().toISOString();
    await project.save();
    await emit({ type: 'state', state: 'running', step: resumedFrom, total: run.total, run: run.id, ...(resumedFrom > 0 ? { reason: `continues ${run.id} from step ${resumedFrom}` } : {}) });

    const touch = () => {
      run.updatedAt = new Date().toISOString();
    };
    const setStatus = async (status: RunStatus) => {
      run.status = status;
      touch();
      await project.save();
    };
    const between = options.between;
    let result: TrainJobResult;
    try {
      result = await runTrainingJob(ctx, {
        source,
        params: definedParams(run.params),
        profileEvery: options.profileEvery,
        signal: options.signal,
        ...(fresh && initial ? { initial } : {}),
        ...(between ? { between: (control: StepControl) => between({ ...control, setStatus }) } : {}),
        checkpoints: { dir: checkpointsDir, every: trainParamValues(run.params)['train.checkpointEvery'], keep: options.keep, from: from?.file },
        onEvent: async (event) => {
          await recordRunEvent(project, run, event, warn);
          await emit(event);
        },
      });
    } catch (error) {
      if (isStartRefusal(error) && manifestBefore.bytes) {
        project.manifest = manifestBefore.manifest;
        await writeFileAtomic(project.file, manifestBefore.bytes);
        throw error;
      }
      const envelope = toErrorEnvelope(error);
      // A lost device is the host's to restart from the newest checkpoint: not the run's failure.
      run.status = envelope.code === 'device_lost' ? 'interrupted' : 'failed';
      if (run.status === 'failed') run.error = { code: envelope.code, message: envelope.message };
      touch();
      await project.save().catch(() => undefined);
      throw error;
    }
    let splatsFile: string | undefined;
    if (result.cancelled) run.status = options.cancelStatus?.() ?? 'interrupted';
    else {
      splatsFile = path.join(project.runDir(run.id), 'splats.ply');
      await makeFolder(path.dirname(splatsFile));
      await writePly(splatsFile, result.splats);
      run.outputs = { splats: project.relative(splatsFile), splatCount: result.splatCount };
      if (result.cameraCorrections) {
        const camerasFile = path.join(project.runDir(run.id), 'cameras.json');
        await writeRefinedCameras(camerasFile, result.cameraCorrections);
        run.outputs.cameras = project.relative(camerasFile);
      }
      run.status = 'finished';
      if (edited?.carried) carryTransform(project, { run: run.id, step: run.step, splats: result.splatCount }, edited.carried, edited.list.base);
    }
    if (!run.evaluations.some((e) => e.step === result.evaluation.step)) recordEvaluation(run.evaluations, result.evaluation);
    touch();
    await project.save();
    if (run.status === 'finished') await emit({ type: 'progress', stage: 'done', step: result.steps, total: result.steps, splats: result.splatCount });
    return { ...result, run, resumedFrom, splatsFile };
  } finally {
    await release();
  }
}
