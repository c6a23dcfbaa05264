/**
 * The engine host's tasks: long work that is not training (capture + import, mesh extraction).
 * Each task runs one async body with an AbortSignal and reports through `task` events: on every
 * state change, on every stage change and at most every `progressIntervalMs` within a stage, so
 * a chatty COLMAP cannot flood the renderer. Cancel aborts the signal; the body decides what is
 * kept (a capture's finished stages are, so importing again resumes). No journal: a task lost to
 * an engine restart is simply not listed any more.
 */
import { randomUUID } from 'node:crypto';
import { ArgonautError, toErrorEnvelope } from '../../../shared/rpc/errors.js';
import type { TaskResult, TaskState, TaskStatus } from '../../../shared/contract/tasks.js';
import type { CaptureReportView } from '../../../shared/contract/tasks.js';

export interface TaskContext {
  signal: AbortSignal;
  /** The current stage and how far it is (0..1). */
  progress(stage: string, fraction: number, extra?: { message?: string; skipped?: boolean }): void;
}

export interface TaskManagerOptions {
  emit: (status: TaskStatus) => void;
  /** Within one stage, progress events at most this often (default 200 ms). */
  progressIntervalMs?: number;
  /** Finished tasks kept for `status` (default 20). */
  keep?: number;
}

interface Task {
  status: TaskStatus;
  controller: AbortController;
  lastEmitMs: number;
  /** What the body left for later calls (the extracted mesh for its preview). */
  payload?: unknown;
}

export class TaskManager {
  private readonly tasks = new Map<string, Task>();

  constructor(private readonly options: TaskManagerOptions) {}

  /**
   * Starts `body` as a task; resolves at once with its id. The body's result (and an optional
   * payload kept for `payloadOf`) ends it `finished`; a throw ends it `failed` (or `cancelled`).
   */
  start(kind: TaskStatus['kind'], title: string, body: (ctx: TaskContext) => Promise<{ result: TaskResult; payload?: unknown }>): string {
    const id = `${kind}-${randomUUID().slice(0, 8)}`;
    const task: Task = { status: { task: id, kind, state: 'running', title, startedMs: Date.now() }, controller: new AbortController(), lastEmitMs: 0 };
    this.tasks.set(id, task);
    this.prune();
    const interval = this.options.progressIntervalMs ?? 200;
    const ctx: TaskContext = {
      signal: task.controller.signal,
      progress: (stage, fraction, extra = {}) => {
        if (task.status.state !== 'running') return;
        const changed = stage !== task.status.stage;
        const { message, skipped, ...rest } = task.status;
        void message;
        void skipped;
        task.status = { ...rest, stage, fraction: Math.min(1, Math.max(0, fraction)), ...(extra.message ? { message: extra.message } : {}), ...(extra.skipped ? { skipped: true } : {}) };
        const now = Date.now();
        if (changed || fraction >= 1 || now - task.lastEmitMs >= interval) this.emit(task, now);
      },
    };
    this.emit(task, Date.now());
    void (async () => {
      try {
        const { result, payload } = await body(ctx);
        task.payload = payload;
        this.finish(task, 'finished', { result });
      } catch (error) {
        const envelope = toErrorEnvelope(error);
        const cancelled = task.controller.signal.aborted || envelope.code === 'cancelled';
        const report = (envelope.details as { report?: CaptureReportView } | undefined)?.report;
        this.finish(task, cancelled ? 'cancelled' : 'failed', { error: { code: cancelled ? 'cancelled' : envelope.code, message: envelope.message }, ...(report ? { report } : {}) });
      }
    })();
    return id;
  }

  cancel(id: string): { task: string; state: TaskState } {
    const task = this.get(id);
    if (task.status.state === 'running') task.controller.abort(new ArgonautError('cancelled', `${id} cancelled`));
    return { task: id, state: task.status.state };
  }

  status(): TaskStatus[] {
    return [...this.tasks.values()].map((t) => t.status).sort((a, b) => b.startedMs - a.startedMs);
  }

  /** What a finished task left (e.g. its mesh); `not_found` for unknown ids, `invalid_argument` while it runs. */
  payloadOf(id: string, kind: TaskStatus['kind']): unknown {
    const task = this.get(id);
    if (task.status.kind !== kind) throw new ArgonautError('invalid_argument', `${id} is a ${task.status.kind} task, not a ${kind} task`);
    if (task.status.state !== 'finished' || task.payload === undefined) throw new ArgonautError('invalid_argument', `${id} is ${task.status.state}; it has no result to show`);
    return task.payload;
  }

  /** Cancels every running task (host shutdown). */
  shutdown(): void {
    for (const t of this.tasks.values()) if (t.status.state === 'running') t.controller.abort(new ArgonautError('cancelled', 'the engine is shutting down'));
  }

  private get(id: string): Task {
    const task = this.tasks.get(id);
    if (!task) throw new ArgonautError('not_found', `no task ${id} in this engine (tasks do not survive an engine restart)`, { task: id });
    return task;
  }

  private finish(task: Task, state: TaskState, extra: Partial<TaskStatus>): void {
    task.status = { ...task.status, state, ...extra };
    this.emit(task, Date.now());
  }

  private emit(task: Task, now: number): void {
    task.lastEmitMs = now;
    this.options.emit(task.status);
  }

  /** Drops the oldest finished tasks past `keep` (their payloads, e.g. meshes, with them). */
  private prune(): void {
    const keep = this.options.keep ?? 20;
    const done = [...this.tasks.values()].filter((t) => t.status.state !== 'running').sort((a, b) => a.status.startedMs - b.status.startedMs);
    for (const t of done.slice(0, Math.max(0, done.length - keep))) this.tasks.delete(t.status.task);
  }
}
