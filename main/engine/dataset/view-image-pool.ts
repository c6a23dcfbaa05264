/**
 * Training's view images prepared on worker threads (view-image-worker.ts). Decoding is sharp's
 * either way (libuv's pool), but what follows it is JavaScript: compositing, undistortion,
 * downscaling, quantizing, the mask (processViewPixels), 150-300 ms a 1296 x 720 photo with a
 * distortion here. On the training thread that work delayed the first steps of every fresh capture
 * (apple on the H200: 47 views in 11 s while the steps waited for them). A thread runs exactly
 * loadViewImageRgb8, so the pixels (and the disk cache it writes) are the same bytes.
 *
 * One pool for the process, started on first use: at most MAX_THREADS threads, all cores but one.
 * A thread holds the process open only while it works (unref'd when idle), and the threads stop
 * after IDLE_MS without work (the engine host lives on between jobs). From source (vitest imports
 * the TypeScript) there is no compiled worker, and a caller's own decoder cannot cross threads:
 * both load on this thread.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ArgonautError, isErrorCode, type ErrorEnvelope } from '../../../shared/rpc/errors.js';
import type { Image } from '../formats/images.js';
import { bundledWorker } from '../worker-script.js';
import type { DatasetView } from './types.js';
import type { ViewImageReply, ViewImageTask } from './view-image-messages.js';
import { loadViewImageRgb8, type ViewImageOptions } from './view-image.js';

const MAX_THREADS = 6;
const IDLE_MS = 5000;

interface Pending {
  task: ViewImageTask;
  resolve: (image: Image) => void;
  reject: (error: Error) => void;
  warn: (message: string) => void;
}


export class ViewImagePool {
  private readonly queue: Pending[] = [];
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private workers = 0;
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly script: URL,
    private readonly threads: number,
    /** Threads stop after this long without work. */
    private readonly idleMs = IDLE_MS,
  ) {
    if (!Number.isInteger(threads) || threads < 1) throw new Error(`view-image-pool.ts: threads must be a whole number >= 1, got ${threads}`);
  }

  /** loadViewImageRgb8 on a thread: the same result, or the same error (an ArgonautError keeps its code and details). */
  load(view: DatasetView, options: ViewImageOptions = {}): Promise<Image> {
    const { warn = (message: string) => console.warn(message), decoder: _decoder, ...crossing } = options;
    return new Promise<Image>((resolve, reject) => {
      this.queue.push({ task: { id: this.nextId++, view, options: crossing }, resolve, reject, warn });
      this.dispatch();
    });
  }

  /** Threads running now (for tests). */
  get running(): number {
    return this.workers;
  }

  /** Stops every thread; loads still queued or running reject. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const stopping = [...this.idle, ...this.busy.keys()];
    for (const pending of [...this.queue.splice(0), ...this.busy.values()]) pending.reject(new Error('view-image-pool.ts: closed'));
    this.idle.length = 0;
    this.busy.clear();
    this.workers = 0;
    await Promise.all(stopping.map((w) => w.terminate()));
  }

  private dispatch(): void {
    clearTimeout(this.idleTimer);
    while (this.queue.length) {
      const worker = this.idle.pop() ?? (this.workers < this.threads ? this.start() : undefined);
      if (!worker) return;
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.ref();
      worker.postMessage(pending.task);
    }
    if (!this.busy.size) this.idleTimer = setTimeout(() => void this.stopIdle(), this.idleMs).unref();
  }

  private start(): Worker {
    const worker = new Worker(this.script);
    this.workers++;
    worker.on('message', (reply: ViewImageReply) => this.received(worker, reply));
    worker.on('error', (error) => this.lost(worker, `failed: ${error.message}`));
    worker.on('exit', (code) => this.lost(worker, `exited (code ${code})`));
    return worker;
  }

  private received(worker: Worker, reply: ViewImageReply): void {
    const pending = this.busy.get(worker);
    if (!pending) return;
    this.busy.delete(worker);
    worker.unref();
    this.idle.push(worker);
    for (const message of reply.warnings) pending.warn(message);
    if ('error' in reply) pending.reject(errorOf(reply.error));
    else pending.resolve(reply.image);
    this.dispatch();
  }

  /** A thread that died: its load fails with the reason, the next loads start another. */
  private lost(worker: Worker, why: string): void {
    const pending = this.busy.get(worker);
    const wasIdle = this.idle.indexOf(worker);
    if (!pending && wasIdle < 0) return; // stopped by close() or stopIdle()
    this.busy.delete(worker);
    if (wasIdle >= 0) this.idle.splice(wasIdle, 1);
    this.workers--;
    pending?.reject(new Error(`view-image-pool.ts: the thread loading ${pending.task.view.imagePath} ${why}`));
    this.dispatch();
  }

  private async stopIdle(): Promise<void> {
    if (this.busy.size || this.queue.length) return;
    const stopping = this.idle.splice(0);
    this.workers -= stopping.length;
    await Promise.all(stopping.map((w) => w.terminate()));
  }
}

function errorOf(envelope: ErrorEnvelope | { message: string }): Error {
  return 'code' in envelope && isErrorCode(envelope.code) ? ArgonautError.fromEnvelope(envelope) : new Error(envelope.message);
}

let shared: ViewImagePool | null | undefined;

/** The process's pool, or null where loads run on this thread (from source, or a single core). */
function sharedPool(): ViewImagePool | null {
  if (shared === undefined) {
    const script = bundledWorker('view-image-worker.mjs');
    // as verify-pool.ts: a bundle without its worker is a build's mistake, said by name
    if (script && !existsSync(fileURLToPath(script))) throw new Error(`view-image-pool.ts: the view-image worker ${fileURLToPath(script)} is missing (scripts/build.mjs builds it beside each bundle)`);
    const threads = Math.min(MAX_THREADS, availableParallelism() - 1);
    shared = script && threads >= 1 ? new ViewImagePool(script, threads) : null;
  }
  return shared;
}

/**
 * loadViewImageRgb8 for training: on the process's worker threads where there are some, else on
 * this thread (a caller's own decoder always runs here).
 */
export function loadViewImageRgb8OffThread(view: DatasetView, options: ViewImageOptions = {}): Promise<Image> {
  const pool = options.decoder ? null : sharedPool();
  return pool ? pool.load(view, options) : loadViewImageRgb8(view, options);
}
