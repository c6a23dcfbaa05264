/**
 * A verification worker thread (verify-pool.ts): estimateTwoViewGeometry on the pairs posted to
 * it, one at a time, with the options it was started with. Bundled on its own beside each entry
 * that verifies (scripts/build.mjs: out/cli/verify-worker.mjs, out/host/verify-worker.mjs).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { estimateTwoViewGeometry } from './two-view-geometry.js';
import type { VerifyTask, VerifyWorkerData, VerifyWorkerReply } from './verify-pool-messages.js';

const port = parentPort;
if (!port) throw new Error('verify-worker.ts: runs as a worker thread (verify-pool.ts starts it), not on its own');
const { options } = workerData as VerifyWorkerData;

port.on('message', ({ task, input }: VerifyTask) => {
  let reply: VerifyWorkerReply;
  try {
    const geometry = estimateTwoViewGeometry(input.points1, input.points2, input.cameras, options);
    reply = { task, geometry };
  } catch (error) {
    reply = { task, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply, 'geometry' in reply ? [reply.geometry.inliers.buffer as ArrayBuffer] : []);
});
