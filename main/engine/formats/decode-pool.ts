/**
 * A small pool of worker threads running the codec step (the slow part: ~100 ms for a 1000x660
 * JPEG in jpeg-js) so that many images decode in parallel. Header checks and EXIF orientation stay
 * on the calling thread (images.ts), so results and errors are identical to `decodeImage`.
 *
 * Robustness over cleverness: if a worker cannot start or dies, the pool stops using workers and
 * every pending and later job runs on the calling thread, with one warning. Workers are unref'd
 * while idle, so an open pool never keeps the process alive.
 *
 * The worker entry is decode-worker.mjs next to this file; scripts/build.mjs bundles it (with
 * codecs.mjs) beside out/cli and out/host, where import.meta.url then finds it.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CodecPixels } from './codecs.mjs';
import { codecFailure, finishImage, prepareImage, runCodec, type Image, type ImageDecoder, type PreparedImage } from './images.js';

interface Job {
  id: number;
  file: string;
  prepared: PreparedImage;
  resolve: (image: Image) => void;
  reject: (error: unknown) => void;
}

type WorkerReply = { id: number; ok: true; pixels: CodecPixels } | { id: number; ok: false; message: string };

interface Slot {
  worker: Worker;
  job: Job | null;
}

export interface DecodePoolOptions {
  /** Worker count; default min(4, available parallelism). 0 decodes on the calling thread. */
  size?: number;
  /** The worker script (tests point it elsewhere to exercise the fallback). */
  workerUrl?: URL;
  /** Called once if workers fail and the pool falls back to the calling thread. */
  warn?: (message: string) => void;
}

export function defaultPoolSize(): number {
  // leave a core to the main thread where there are many; two workers on a 2-core machine
  const cores = os.availableParallelism();
  return Math.max(1, Math.min(8, cores, Math.max(2, cores - 1)));
}

export class DecodePool implements ImageDecoder {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private broken: boolean;
  private closed = false;
  private readonly warn: (message: string) => void;
  /** Codec runs that happened in a worker / on the calling thread (for tests and profiles). */
  readonly counts = { worker: 0, callingThread: 0 };
  /** Workers requested (0 = calling thread only). */
  readonly size: number;

  constructor(options: DecodePoolOptions = {}) {
    this.warn = options.warn ?? ((message) => console.warn(message));
    const size = options.size ?? defaultPoolSize();
    this.size = size;
    const url = options.workerUrl ?? new URL('./decode-worker.mjs', import.meta.url);
    this.broken = size === 0;
    for (let i = 0; i < size && !this.broken; i++) {
      try {
        const worker = new Worker(url);
        worker.unref();
        const slot: Slot = { worker, job: null };
        worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply));
        worker.on('error', (error) => this.onWorkerFailure(slot, error));
        worker.on('exit', (code) => {
          if (!this.closed) this.onWorkerFailure(slot, new Error(`decode worker exited with code ${code}`));
        });
        this.slots.push(slot);
      } catch (error) {
        this.fallBack(error);
      }
    }
  }

  /** True while jobs go to workers; false after a fallback (or with size 0). */
  get usingWorkers(): boolean {
    return !this.broken;
  }

  decode(bytes: Uint8Array, file: string): Promise<Image> {
    if (this.closed) return Promise.reject(new Error('DecodePool.decode after close()'));
    let prepared: PreparedImage;
    try {
      prepared = prepareImage(bytes, file);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<Image>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, file, prepared, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
    for (const job of this.queue.splice(0)) job.reject(new Error('DecodePool closed with jobs pending'));
  }

  private pump(): void {
    if (this.broken) {
      for (const job of this.queue.splice(0)) this.runHere(job);
      return;
    }
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      // A copy of the codec bytes is transferred: the caller keeps its buffer untouched.
      const bytes = job.prepared.codecBytes.slice();
      slot.worker.postMessage({ id: job.id, format: job.prepared.header.format, bytes }, [bytes.buffer]);
    }
  }

  private runHere(job: Job): void {
    this.counts.callingThread++;
    try {
      job.resolve(finishImage(job.prepared, runCodec(job.prepared, job.file), job.file));
    } catch (error) {
      job.reject(error);
    }
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    slot.job = null;
    slot.worker.unref();
    this.counts.worker++;
    try {
      if (!reply.ok) throw codecFailure(job.file, job.prepared.header.format, reply.message);
      job.resolve(finishImage(job.prepared, reply.pixels, job.file));
    } catch (error) {
      job.reject(error);
    }
    this.pump();
  }

  private onWorkerFailure(slot: Slot, error: unknown): void {
    const job = slot.job;
    slot.job = null;
    this.fallBack(error);
    if (job) this.queue.unshift(job);
    this.pump();
  }

  private fallBack(error: unknown): void {
    if (this.broken) return;
    this.broken = true;
    this.warn(`image decode workers unavailable, decoding on the calling thread: ${error instanceof Error ? error.message : String(error)}`);
    const slots = this.slots.splice(0);
    for (const s of slots) {
      if (s.job) this.queue.unshift(s.job);
      s.job = null; // its 'exit' after terminate() must not queue the job again
      void s.worker.terminate();
    }
  }
}
