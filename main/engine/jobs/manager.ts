/**
 * Training jobs in the engine host: start, pause, resume, stop, status, and their events.
 *
 * Every job trains a project (main/engine/project/train-run.ts): the user's, or a scratch project
 * in the state folder for the sample scene and bare datasets, so a job always has checkpoints, a
 * manifest and a place for its result. The journal (journal.ts) records each state change; a host
 * restarted by its supervisor (ARGONAUT_HOST_RESTARTS > 0) continues the jobs that were running
 * from their newest checkpoints, under the same job ids. A fresh host marks them interrupted
 * (resumable with train.resume).
 *
 * Events: a job's `TrainEvent`s (shared/contract/train-events.ts) go out as contract events with
 * the job's id added (`forward`): `job` on each state change, `progress` and `metrics` (the one
 * metric tuple) from the trainer, `snapshot` (the splats in the 32-byte layout, binary) at most
 * every 500 ms and at most 5 % of training time, `profile` every few seconds when the engine
 * profiles. The pause gate (pause-gate.ts) and the throttles (throttle.ts) are their own pieces.
 *
 * A partitioned job (`startPartitioned`, partitioned-job.ts) trains a partition's blocks and
 * merges them instead, with `block` and `merge` events besides; it cannot pause.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { z } from 'zod';
import type { Contract } from '../../../shared/contract/index.js';
import { isActiveJobState, type JobState, type JobStatus, type TrainSource } from '../../../shared/contract/projects.js';
import { metricValuesOf, type TrainEvent } from '../../../shared/contract/train-events.js';
import type { ParamValue } from '../../../shared/params/index.js';
import { PROJECT_EXTENSION, type ExportFormat } from '../../../shared/project/manifest.js';
import { ArgonautError, toErrorEnvelope } from '../../../shared/rpc/errors.js';
import { encodeSplatSet } from '../../../shared/scene/splat-layout.js';
import type { Engine } from '../engine.js';
import { exportProject, type ExportResult } from '../project/export.js';
import { createSampleProject, importDataset } from '../project/import.js';
import { Project } from '../project/project.js';
import { trainProject, type ProjectStepControl } from '../project/train-run.js';
import type { GpuContext } from '../gpu/context.js';
import { checkedDatasetPath, checkedProjectFile } from './checked-paths.js';
import { JobJournal, type JobRecord } from './journal.js';
import { checkPartitionedStart, continuesByItself, runPartitionedJob, usableQueueUrl, type PartitionedJobRequest } from './partitioned-job.js';
import { PauseGate } from './pause-gate.js';
import { Throttle, type ThrottleStats } from './throttle.js';

type Events = Contract['events'];
export type EmitEvent = <N extends keyof Events & string>(name: N, payload: z.input<Events[N]>) => void;

export interface JobManagerOptions {
  engine: Engine;
  /** Folder of the journal and of scratch projects. */
  stateDir: string;
  emit: EmitEvent;
  /** Snapshots: never closer together than this (default 500 ms, i.e. at most 2 per second). */
  snapshotMinIntervalMs?: number;
  /** Snapshots: at most this share of training time (default 0.05). */
  snapshotBudget?: number;
  /** Profile reports: at most this often when profiling (default 5000 ms). */
  profileIntervalMs?: number;
  /** Automatic continuations without a new checkpoint before a job is failed (default 3). */
  maxRecoveries?: number;
}

interface Job {
  /** The job as the journal keeps it; `record.step` is the job's one current step (from its events). */
  record: JobRecord;
  /** The open project while the loop runs (exports of a training project go through it). */
  project?: Project;
  controller?: AbortController;
  loop?: Promise<void>;
  pause: PauseGate;
  stopRequested: boolean;
  /** A partitioned job's queue URL as given, password included: in memory only (the record's is redacted). */
  queueUrl?: string;
}

/** What the manager measured of its snapshots (tests check the budget). */
export type SnapshotStats = ThrottleStats;

export class JobManager {
  private readonly jobs = new Map<string, Job>();
  private readonly journal: JobJournal;
  private deviceLost = false;
  readonly snapshotStats = new Map<string, SnapshotStats>();

  constructor(private readonly options: JobManagerOptions) {
    this.journal = new JobJournal(options.stateDir);
    options.engine.deviceLost.add(() => {
      this.deviceLost = true;
    });
  }

  private log(level: 'info' | 'warn' | 'error', message: string, job?: string) {
    this.options.engine.log(level, message, job ? `job ${job}` : 'jobs');
  }

  /**
   * Reads the journal. `restarted`: this host replaces one that crashed, so running jobs continue
   * by themselves; otherwise they are marked interrupted.
   */
  async recover(restarted: boolean): Promise<void> {
    for (const record of await this.journal.read((m) => this.log('warn', m))) {
      const job: Job = { record, pause: new PauseGate(), stopRequested: false };
      this.jobs.set(record.job, job);
      if (record.state === 'starting' || record.state === 'running') {
        if (!restarted) record.state = 'interrupted';
        else if (record.recoveries >= (this.options.maxRecoveries ?? 3)) {
          record.state = 'failed';
          record.error = { code: 'host_crashed', message: `the engine stopped ${record.recoveries + 1} times during this job without a new checkpoint; not continuing it automatically` };
        } else if (record.partition && !continuesByItself(record.partition)) {
          record.state = 'interrupted';
          this.log('warn', `${record.project}: ${record.partition.partition} trains through ${record.partition.queue}, whose password the engine does not keep: train the blocks again to continue`, record.job);
        } else {
          record.recoveries += 1;
          this.log('info', `continuing after an engine restart from the newest checkpoint of ${record.project}`, record.job);
          this.launch(job, false, 'continues after an engine restart');
        }
      } else if (record.state === 'stopping') record.state = 'stopped';
    }
    if (this.jobs.size) await this.saveJournal(); // a host that never trained writes nothing
  }

  private records(): JobRecord[] {
    return [...this.jobs.values()].map((j) => j.record).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  private async saveJournal(): Promise<void> {
    try {
      await this.journal.write(this.records());
    } catch (error) {
      this.log('error', `could not write the job journal ${this.journal.file}: ${(error as Error).message}`);
    }
  }

  private setState(job: Job, state: JobState, reason?: string): void {
    job.record.state = state;
    job.record.updatedAt = new Date().toISOString();
    void this.saveJournal();
    const r = job.record;
    this.options.emit('job', { job: r.job, state, project: r.project, ...(r.run ? { run: r.run } : {}), step: r.step, total: r.total, ...(reason ? { reason } : {}) });
  }

  status(): JobStatus[] {
    return this.records()
      .reverse()
      .map((r) => ({ job: r.job, state: r.state, source: r.source, project: r.project, run: r.run ?? '', step: r.step, total: r.total, ...(r.error ? { error: r.error } : {}), ...(r.partition ? { partition: r.partition } : {}) }));
  }

  private get(id: string): Job {
    const job = this.jobs.get(id);
    if (!job) throw new ArgonautError('not_found', `no training job "${id}" (train.status lists them)`);
    return job;
  }

  /** The project a job trains, or undefined. Shared with exports so one object writes each manifest. */
  openProjectOf(file: string): Project | undefined {
    const absolute = path.resolve(file);
    for (const job of this.jobs.values()) if (job.project && job.project.file === absolute && job.loop) return job.project;
    return undefined;
  }

  /** Starts a job: validates the source now (errors go to the caller), then trains in the background. */
  async start(source: TrainSource, params: Readonly<Record<string, ParamValue>>, newRun = false): Promise<{ job: string }> {
    const id = newJobId();
    const trainParams = trainParamsOf(params);
    let projectFile: string;
    if (source.kind === 'project') {
      projectFile = await checkedProjectFile(source.path);
      await Project.open(projectFile); // refuses bad files before a job exists
      this.refuseBusy(projectFile);
    } else {
      projectFile = path.join(this.options.stateDir, 'scratch', `${id}${PROJECT_EXTENSION}`);
      if (source.kind === 'sample') await createSampleProject(projectFile, trainParams);
      else await importDataset(await checkedDatasetPath(source.path), projectFile, { params: trainParams, verifyImages: false });
    }
    const total = typeof trainParams['train.iterations'] === 'number' ? trainParams['train.iterations'] : 0;
    return this.add({ job: id, source, project: projectFile, total, params: trainParams, newRun });
  }

  /**
   * Starts a job that trains `file` as the blocks of a partition (here, or through a queue for
   * workers) and merges them: an unknown partition or a queue that cannot be used is the call's
   * error, by name; the newest run of that partition continues when it has not finished.
   */
  async startPartitioned(file: string, request: PartitionedJobRequest, params: Readonly<Record<string, ParamValue>>): Promise<{ job: string }> {
    const projectFile = await checkedProjectFile(file);
    this.refuseBusy(projectFile);
    const partition = await checkPartitionedStart(await Project.open(projectFile), request);
    this.refuseBusy(projectFile); // again: the queue check waited
    return this.add({ job: newJobId(), source: { kind: 'project', path: projectFile }, project: projectFile, total: 0, params: trainParamsOf(params), newRun: false, partition }, request.queue);
  }

  /** A new job, starting now. */
  private add(fields: Omit<JobRecord, 'state' | 'step' | 'recoveries' | 'createdAt' | 'updatedAt'>, queueUrl?: string): { job: string } {
    const now = new Date().toISOString();
    const job: Job = { record: { ...fields, state: 'starting', step: 0, recoveries: 0, createdAt: now, updatedAt: now }, pause: new PauseGate(), stopRequested: false, ...(queueUrl !== undefined ? { queueUrl } : {}) };
    this.jobs.set(job.record.job, job);
    this.launch(job, fields.newRun);
    return { job: job.record.job };
  }

  private refuseBusy(projectFile: string): void {
    const busy = [...this.jobs.values()].find((j) => j.record.project === projectFile && isActiveJobState(j.record.state));
    if (busy) throw new ArgonautError('busy', `${projectFile}: already being trained by ${busy.record.job}; stop it first`, { job: busy.record.job });
  }

  pause(id: string): { job: string; state: JobState } {
    const job = this.get(id);
    if (job.record.partition) throw new ArgonautError('invalid_argument', `${id} trains the blocks of ${job.record.partition.partition}, which cannot pause: stop it (each block keeps its newest checkpoint) and resume it later`);
    if (job.record.state === 'running' || job.record.state === 'starting') job.pause.request();
    else if (job.record.state !== 'paused') throw new ArgonautError('invalid_argument', `${id} is ${job.record.state}; only a running job can pause`);
    return { job: id, state: job.record.state };
  }

  resume(id: string): { job: string; state: JobState } {
    const job = this.get(id);
    if (job.loop) {
      job.pause.release();
      return { job: id, state: job.record.state };
    }
    if (job.record.state === 'finished') throw new ArgonautError('invalid_argument', `${id} has finished; start a new job to train more`);
    if (isActiveJobState(job.record.state) && job.record.state !== 'paused') return { job: id, state: job.record.state };
    if (job.record.partition) usableQueueUrl(job.record.project, job.record.partition, job.queueUrl); // names a queue it cannot reach again
    job.record.recoveries = 0;
    this.launch(job, false);
    return { job: id, state: job.record.state };
  }

  stop(id: string): { job: string; state: JobState } {
    const job = this.get(id);
    if (!job.loop) {
      if (isActiveJobState(job.record.state)) this.setState(job, 'stopped');
      return { job: id, state: job.record.state };
    }
    job.stopRequested = true;
    job.controller?.abort(); // wakes a paused job too
    if (job.record.state !== 'stopping') this.setState(job, 'stopping');
    return { job: id, state: job.record.state };
  }

  /** A job's newest splats (its project's), written as `format`. */
  async exportJob(id: string, format: ExportFormat, file: string): Promise<ExportResult> {
    const job = this.get(id);
    const project = this.openProjectOf(job.record.project) ?? (await Project.open(job.record.project));
    return exportProject(project, format, file, (m) => this.log('warn', m, id));
  }

  /** Stops every running job with a checkpoint (host shutdown); they stay resumable. */
  async shutdown(): Promise<void> {
    const loops: Promise<void>[] = [];
    for (const job of this.jobs.values()) {
      if (!job.loop) continue;
      job.controller?.abort();
      loops.push(job.loop);
    }
    await Promise.allSettled(loops);
    await this.saveJournal();
  }

  private launch(job: Job, newRun: boolean, reason?: string): void {
    const loop = this.runLoop(job, newRun, reason).finally(() => {
      if (job.loop === loop) {
        job.loop = undefined;
        job.project = undefined;
      }
    });
    job.loop = loop;
  }

  /** A job's event, as the contract's events with the job's id (and the journal's step and state). */
  private forward(job: Job, event: TrainEvent): void {
    const id = job.record.job;
    const { emit } = this.options;
    switch (event.type) {
      case 'progress':
        if (event.stage === 'train' || event.stage === 'done') job.record.step = event.step;
        emit('progress', { ...withoutType(event), job: id, ...(event.total > 0 ? { fraction: Math.min(1, event.step / event.total) } : {}) });
        break;
      case 'snapshot':
        emit('snapshot', { ...withoutType(event), job: id });
        break;
      case 'profile':
        emit('profile', { ...withoutType(event), job: id });
        break;
      case 'block':
        emit('block', { ...withoutType(event), job: id });
        break;
      case 'merge':
        emit('merge', { ...withoutType(event), job: id });
        break;
      case 'evaluation': // every view for the Train view's table; its means go out as metrics below
        emit('evaluation', { ...withoutType(event), job: id });
        break;
      case 'log':
        this.log(event.level, event.message, id);
        break;
      case 'checkpoint':
        this.log('info', `checkpoint at step ${event.step}: ${event.file}`, id);
        job.record.step = event.step;
        job.record.recoveries = 0;
        void this.saveJournal();
        break;
      case 'state':
        if (event.run) job.record.run = event.run;
        job.record.step = event.step;
        job.record.total = event.total;
        this.setState(job, event.state, event.reason);
        break;
    }
    const metrics = metricValuesOf(event);
    if (metrics) emit('metrics', { job: id, ...metrics });
  }

  /** Before each step: the pause gate, then a live snapshot and a profile report when due. */
  private betweenSteps(job: Job, signal: AbortSignal, gpu: GpuContext, profiling: boolean) {
    const snapshots = new Throttle({ minIntervalMs: this.options.snapshotMinIntervalMs ?? 500, budget: this.options.snapshotBudget ?? 0.05 });
    this.snapshotStats.set(job.record.job, snapshots.stats);
    const profileIntervalMs = this.options.profileIntervalMs ?? 5000;
    const profiles = new Throttle({ minIntervalMs: profileIntervalMs, firstAtMs: performance.now() + profileIntervalMs });
    return async (control: ProjectStepControl) => {
      await job.pause.pass(signal, {
        enter: async () => {
          await control.checkpoint();
          await control.setStatus('paused');
          this.setState(job, 'paused');
        },
        leave: async () => {
          await control.setStatus('running');
          this.setState(job, 'running');
        },
      });
      if (signal.aborted) return; // stopped while paused: the job checkpoints and ends, no snapshot
      const now = performance.now();
      if (snapshots.due(now)) {
        const splats = await control.download();
        this.forward(job, { type: 'snapshot', step: control.step, count: splats.count, data: encodeSplatSet(splats) });
        snapshots.done(now, performance.now());
      }
      if (profiling && profiles.due(now)) {
        this.forward(job, { type: 'profile', step: control.step, report: await gpu.profiler.report() });
        profiles.done(now, now);
      }
    };
  }

  private async runLoop(job: Job, newRun: boolean, reason?: string): Promise<void> {
    const id = job.record.job;
    const controller = new AbortController();
    job.controller = controller;
    job.stopRequested = false;
    job.pause.reset();
    this.setState(job, 'starting', reason);
    try {
      const project = await Project.open(job.record.project);
      job.project = project;
      const gpu = await this.options.engine.gpu();
      if (job.record.partition) {
        const queue = usableQueueUrl(job.record.project, job.record.partition, job.queueUrl);
        const { cancelled } = await runPartitionedJob(gpu, project, { partition: job.record.partition, queue, params: job.record.params }, { signal: controller.signal, onEvent: (event) => this.forward(job, event) });
        this.setState(job, cancelled ? (job.stopRequested ? 'stopped' : 'interrupted') : 'finished');
        return;
      }
      const profiling = this.options.engine.options.profile;
      if (profiling) gpu.profiler.reset();
      const result = await trainProject(gpu, project, {
        overrides: job.record.params,
        newRun,
        onParamConflict: 'ignore',
        signal: controller.signal,
        cancelStatus: () => (job.stopRequested ? 'stopped' : 'interrupted'),
        profileEvery: profiling ? 10 : 0,
        between: this.betweenSteps(job, controller.signal, gpu, profiling),
        onEvent: (event) => this.forward(job, event),
      });
      if (profiling) this.forward(job, { type: 'profile', step: result.steps, report: await gpu.profiler.report() });
      this.setState(job, result.cancelled ? (job.stopRequested ? 'stopped' : 'interrupted') : 'finished');
    } catch (error) {
      // A lost device ends this process; the journal keeps the job running for the next host.
      if (this.deviceLost) return;
      const envelope = toErrorEnvelope(error);
      job.record.error = { code: envelope.code, message: envelope.message };
      this.log('error', envelope.message, id);
      this.options.emit('error', { job: id, code: envelope.code, message: envelope.message, ...(envelope.details !== undefined ? { details: envelope.details } : {}) });
      this.setState(job, 'failed', envelope.message);
    }
  }
}

/** An event's payload without its discriminant (the contract's event name says what it is). */
function withoutType<E extends TrainEvent>(event: E): Omit<E, 'type'> {
  const { type: _type, ...payload } = event;
  return payload;
}

function newJobId(): string {
  return `job-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** The training parameters of a job's request (system.* belong to the host). */
function trainParamsOf(params: Readonly<Record<string, ParamValue>>): Record<string, ParamValue> {
  return Object.fromEntries(Object.entries(params).filter(([k]) => k.startsWith('train.')));
}
