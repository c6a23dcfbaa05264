/**
 * Decode worker: runs the codec step (codecs.mjs) on bytes the pool sends and transfers the pixels
 * back. Plain JavaScript because Node 20 workers cannot load TypeScript; see codecs.mjs.
 * Messages in: { id, format, bytes }. Out: { id, ok: true, pixels } or { id, ok: false, message }.
 */
import { parentPort } from 'node:worker_threads';
import { decodePixels } from './codecs.mjs';

parentPort.on('message', ({ id, format, bytes }) => {
  let pixels;
  try {
    pixels = decodePixels(format, bytes);
  } catch (error) {
    parentPort.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
    return;
  }
  parentPort.postMessage({ id, ok: true, pixels }, [pixels.data.buffer]);
});
