/**
 * Waiting in tests for something that happens later (an event a job emits, a file a child process
 * writes): one polling helper, so every test fails the same way, naming what it waited for and what
 * it saw last, instead of hanging until vitest's own timeout.
 */

export interface WaitOptions {
  /** Gives up after this long (default 60 s). */
  timeoutMs?: number;
  /** What is waited for, for the error message ("host state ready"). */
  what?: string;
  /** What was seen instead, called once when giving up (the last events, the current state). */
  lastSeen?: () => string;
}

const POLL_INTERVAL_MS = 20;

/**
 * Polls `probe` every 20 ms until it returns something other than undefined, and resolves with it.
 * The first probe runs at once, so a condition already true resolves without waiting.
 */
export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, options: WaitOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const seen = options.lastSeen ? `; last seen: ${options.lastSeen()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** Resolves with the first element of `events` (which keeps growing) that `match` accepts. */
export function waitForEvent<E>(events: readonly E[], match: (event: E) => boolean, options: WaitOptions = {}): Promise<E> {
  return waitFor(() => events.find(match), {
    what: 'a matching event',
    lastSeen: () => JSON.stringify(events.slice(-3)).slice(0, 600),
    ...options,
  });
}
