/**
 * A view-image worker thread (view-image-pool.ts): loadViewImageRgb8 on the views posted to it,
 * one at a time, the pixels moved (not copied) back. Bundled on its own beside each entry that
 * trains (scripts/build.mjs: out/cli/view-image-worker.mjs, out/host/view-image-worker.mjs).
 */
import { parentPort } from 'node:worker_threads';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { ViewImageReply, ViewImageTask } from './view-image-messages.js';
import { loadViewImageRgb8 } from './view-image.js';

const port = parentPort;
if (!port) throw new Error('view-image-worker.ts: runs as a worker thread (view-image-pool.ts starts it), not on its own');

port.on('message', ({ id, view, options }: ViewImageTask) => {
  const warnings: string[] = [];
  loadViewImageRgb8(view, { ...options, warn: (message) => warnings.push(message) }).then(
    (image) => {
      const reply: ViewImageReply = { id, image, warnings };
      port.postMessage(reply, [image.data.buffer as ArrayBuffer]);
    },
    (error: unknown) => {
      const envelope = error instanceof ArgonautError ? error.toEnvelope() : { message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
      const reply: ViewImageReply = { id, error: envelope, warnings };
      port.postMessage(reply);
    },
  );
});
