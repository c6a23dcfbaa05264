/** What verify-pool.ts and its worker threads (verify-worker.ts) send each other. */
import type { TwoViewGeometry } from './two-view-geometry.js';
import type { VerifyOptions } from './verify-options.js';
import type { PairInput } from './verify-pairs.js';

export interface VerifyWorkerData {
  options: Partial<VerifyOptions>;
}

/** One pair to verify; `task` is its place in the pool's order. */
export interface VerifyTask {
  task: number;
  input: PairInput;
}

export type VerifyWorkerReply = { task: number; geometry: TwoViewGeometry } | { task: number; error: string };
