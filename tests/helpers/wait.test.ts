import { describe, expect, it } from 'vitest';
import { waitFor, waitForEvent } from './wait.js';

describe('the tests’ waiting helper', () => {
  it('resolves with the first value the probe returns, at once when it is already there', async () => {
    let calls = 0;
    await expect(waitFor(() => (++calls >= 3 ? 'done' : undefined))).resolves.toBe('done');
    expect(calls).toBe(3);
    calls = 0;
    await expect(waitFor(() => (++calls, 0))).resolves.toBe(0); // 0 and false are values, only undefined is "not yet"
    expect(calls).toBe(1);
  });

  it('gives up after its timeout, naming what it waited for and what it saw', async () => {
    await expect(waitFor(() => undefined, { timeoutMs: 50, what: 'host state ready', lastSeen: () => 'crashed' })).rejects.toThrow(
      'timed out after 50 ms waiting for host state ready; last seen: crashed',
    );
  });

  it('finds an event pushed after the wait began', async () => {
    const events: { name: string }[] = [{ name: 'log' }];
    setTimeout(() => events.push({ name: 'job' }), 30);
    await expect(waitForEvent(events, (e) => e.name === 'job')).resolves.toEqual({ name: 'job' });
    await expect(waitForEvent(events, (e) => e.name === 'never', { timeoutMs: 30 })).rejects.toThrow('last seen: [{"name":"log"},{"name":"job"}]');
  });
});
