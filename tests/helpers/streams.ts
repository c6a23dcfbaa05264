import type { Streams } from '../../main/cli/output.js';

/** Captures what the CLI writes. */
export function captureStreams(): Streams & { out: () => string; err: () => string; jsonLines: () => Record<string, unknown>[] } {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t), isTTY: false },
    out: () => stdout,
    err: () => stderr,
    jsonLines: () =>
      stdout
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
