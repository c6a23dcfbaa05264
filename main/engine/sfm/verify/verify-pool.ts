/**
 * Geometric verification on all cores: a pool of worker threads (verify-worker.ts), each running
 * estimateTwoViewGeometry on one pair at a time, the next pair going to whichever thread is free.
 * The results are those of verifyPairs (verify-pairs.ts) exactly, in the order the pairs were
 * added, whatever the thread count: every pair's RANSAC starts from the same seed (options.seed),
 * so no pair's answer depends on which pairs ran before it or where.
 *
 * Pairs can be added while earlier ones are verified (capture adds each as the GPU matcher hands
 * it over, so verification overlaps matching). The host thread only gathers each pair's matched
 * points (O(matches)) and builds its inlier list; the points move to the worker without a copy.
 *
 * Without a compiled worker (running from source: vitest imports the TypeScript) or with threads
 * 0, the pairs are verified on this thread, a few at a time between event-loop turns, so progress
 * and a cancel still get through.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { bundledWorker } from '../../worker-script.js';
import type { ImagePair } from '../match-pairs.js';
import { estimateTwoViewGeometry, type TwoViewGeometry } from './two-view-geometry.js';
import type { PinholeIntrinsics, VerifyOptions } from './verify-options.js';
import type { VerifyTask, VerifyWorkerData, VerifyWorkerReply } from './verify-pool-messages.js';
import { checkMatchLists, pairInput, verifiedPair, type VerifiedPair } from './verify-pairs.js';

/** All cores but one (the host thread keeps the GPU fed and the UI answered), at least one. */
export function defaultVerifyThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** Pairs verified between event-loop turns when verifying on this thread (~0.1-1 s of work). */
const PAIRS_PER_TURN = 4;

/** The verification worker's bundle beside the running one (null from source: worker-script.ts). */
export function bundledWorkerScript(): URL | null {
  return bundledWorker('verify-worker.mjs');
}

export interface VerifyPoolOptions {
  /** Worker threads (default defaultVerifyThreads()); 0 verifies on this thread. */
  threads?: number;
  /** The worker's script (default bundledWorkerScript()); null verifies on this thread. */
  workerScript?: URL | null;
  /** Aborting stops every thread; finish() then rejects with a 'cancelled' error. */
  signal?: AbortSignal;
  /** After each pair is verified: how many are so far (pairs finish in any order). */
  onVerified?: (done: number) => void;
}

export class VerifyPool {
  private readonly pairs: ImagePair[] = [];
  private readonly matches: Uint32Array[] = [];
  private readonly results: VerifiedPair[] = [];
  private done = 0;
  /** The next pair no thread has taken yet. */
  private next = 0;
  private failure: Error | undefined;
  private finishing: { resolve: (results: VerifiedPair[]) => void; reject: (error: Error) => void } | undefined;
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  /** The pair each busy worker holds. */
  private readonly busy = new Map<Worker, number>();
  private turnScheduled = false;
  private closed = false;
  private readonly onAbort = () => this.fail(new ArgonautError('cancelled', 'cancelled'));

  constructor(
    private readonly keypoints: readonly Float32Array[],
    private readonly cameras: readonly (PinholeIntrinsics | undefined)[] | undefined,
    private readonly options: Partial<VerifyOptions> = {},
    private readonly pool: VerifyPoolOptions = {},
  ) {
    const threads = pool.threads ?? defaultVerifyThreads();
    if (!Number.isInteger(threads) || threads < 0) throw new Error(`verify-pool.ts: threads must be a whole number >= 0, got ${threads}`);
    const script = pool.workerScript === undefined ? bundledWorkerScript() : pool.workerScript;
    if (script && threads > 0) {
      if (!existsSync(fileURLToPath(script))) throw new Error(`verify-pool.ts: the verification worker ${fileURLToPath(script)} is missing (scripts/build.mjs builds it beside each bundle)`);
      const workerData: VerifyWorkerData = { options };
      for (let t = 0; t < threads; t++) this.startWorker(script, workerData);
    }
    pool.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (pool.signal?.aborted) this.onAbort();
  }

  /** Threads verifying (0: this one). */
  get threads(): number {
    return this.workers.length;
  }

  /** Queues one pair (its raw matches as [i0, j0, i1, j1, ...], verify-pairs.ts). */
  add(pair: ImagePair, matches: Uint32Array): void {
    if (this.finishing) throw new Error('verify-pool.ts: a pair added after finish()');
    this.pairs.push(pair);
    this.matches.push(matches);
    this.dispatch();
  }

  /** Every added pair verified, in the order added; the threads are stopped. */
  finish(): Promise<VerifiedPair[]> {
    const finished = new Promise<VerifiedPair[]>((resolve, reject) => (this.finishing = { resolve, reject }));
    if (this.failure) this.finishing!.reject(this.failure);
    else this.settleIfDone();
    return finished;
  }

  /** Stops the threads (safe to call twice; finish() does it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pool.signal?.removeEventListener('abort', this.onAbort);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private startWorker(script: URL, workerData: VerifyWorkerData): void {
    const worker = new Worker(script, { workerData });
    worker.on('message', (reply: VerifyWorkerReply) => this.received(worker, reply));
    worker.on('error', (error) => this.fail(new Error(`verify-pool.ts: a verification thread failed${this.heldBy(worker)}: ${error.message}`)));
    worker.on('exit', (code) => {
      if (!this.closed) this.fail(new Error(`verify-pool.ts: a verification thread exited (code ${code})${this.heldBy(worker)}`));
    });
    this.workers.push(worker);
    this.idle.push(worker);
  }

  private heldBy(worker: Worker): string {
    const task = this.busy.get(worker);
    return task === undefined ? '' : ` on pair (${this.pairs[task][0]}, ${this.pairs[task][1]})`;
  }

  private dispatch(): void {
    if (this.failure) return;
    if (!this.workers.length) {
      this.scheduleTurn();
      return;
    }
    while (this.idle.length && this.next < this.pairs.length) {
      const task = this.next++;
      let input;
      try {
        input = pairInput(this.pairs[task], this.matches[task], this.keypoints, this.cameras);
      } catch (error) {
        this.fail(error as Error);
        return;
      }
      const worker = this.idle.pop()!;
      this.busy.set(worker, task);
      const message: VerifyTask = { task, input };
      // matchedPoints made both arrays for this task: moved to the worker, not copied
      worker.postMessage(message, [input.points1.buffer as ArrayBuffer, input.points2.buffer as ArrayBuffer]);
    }
  }

  private received(worker: Worker, reply: VerifyWorkerReply): void {
    this.busy.delete(worker);
    if (this.failure) return;
    const pair = this.pairs[reply.task];
    if ('error' in reply) {
      this.fail(new Error(`verify-pool.ts: pair (${pair[0]}, ${pair[1]}): ${reply.error}`));
      return;
    }
    this.idle.push(worker);
    this.record(reply.task, reply.geometry);
    this.dispatch();
  }

  private record(task: number, geometry: TwoViewGeometry): void {
    this.results[task] = verifiedPair(this.pairs[task], this.matches[task], geometry);
    this.done++;
    this.pool.onVerified?.(this.done);
    this.settleIfDone();
  }

  /** This thread's way: a few pairs, then a turn of the event loop. */
  private scheduleTurn(): void {
    if (this.turnScheduled || this.next >= this.pairs.length) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      for (let k = 0; k < PAIRS_PER_TURN && this.next < this.pairs.length && !this.failure; k++) {
        const task = this.next++;
        try {
          const input = pairInput(this.pairs[task], this.matches[task], this.keypoints, this.cameras);
          this.record(task, estimateTwoViewGeometry(input.points1, input.points2, input.cameras, this.options));
        } catch (error) {
          this.fail(error as Error);
        }
      }
      this.scheduleTurn();
    });
  }

  private settleIfDone(): void {
    if (!this.finishing || this.failure || this.done < this.pairs.length) return;
    const { resolve } = this.finishing;
    void this.close().then(() => resolve(this.results));
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    void this.close();
    this.finishing?.reject(error);
  }
}

/** verifyPairs on the pool: the same results, on defaultVerifyThreads() threads. */
export async function verifyPairsInParallel(
  pairs: readonly ImagePair[],
  matches: readonly Uint32Array[],
  keypoints: readonly Float32Array[],
  cameras: readonly (PinholeIntrinsics | undefined)[] | undefined,
  options: Partial<VerifyOptions> = {},
  pool: Omit<VerifyPoolOptions, 'onVerified'> & { onPair?: (done: number, total: number) => void } = {},
): Promise<VerifiedPair[]> {
  checkMatchLists(pairs, matches);
  const verifier = new VerifyPool(keypoints, cameras, options, { ...pool, threads: Math.min(pool.threads ?? defaultVerifyThreads(), pairs.length), onVerified: (done) => pool.onPair?.(done, pairs.length) });
  try {
    pairs.forEach((pair, p) => verifier.add(pair, matches[p]));
    return await verifier.finish();
  } finally {
    await verifier.close();
  }
}
