/**
 * A worker thread's bundle beside the running one: scripts/build.mjs writes each worker
 * (`verify-worker.mjs`, `view-image-worker.mjs`) next to every entry's index.mjs, so a bundle finds
 * it at new URL('./<name>', import.meta.url). Null when running from source (vitest imports the
 * TypeScript), where there is no compiled worker and the caller does the work on its own thread.
 */
export function bundledWorker(fileName: string): URL | null {
  const here: unknown = import.meta.url;
  if (typeof here !== 'string' || here.endsWith('.ts')) return null;
  return new URL(`./${fileName}`, here);
}
