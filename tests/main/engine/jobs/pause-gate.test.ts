import { describe, expect, it } from 'vitest';
import { PauseGate } from '../../../../main/engine/jobs/pause-gate.js';

function recorder() {
  const calls: string[] = [];
  return { calls, hooks: { enter: async () => void calls.push('enter'), leave: async () => void calls.push('leave') } };
}

describe('PauseGate', () => {
  it('lets a step through at once when no pause is pending, without calling either hook', async () => {
    const gate = new PauseGate();
    const { calls, hooks } = recorder();
    expect(await gate.pass(new AbortController().signal, hooks)).toBe(false);
    expect(calls).toEqual([]);
  });

  it('holds a requested pause until release: enter first, leave after the release, then no longer requested', async () => {
    const gate = new PauseGate();
    const { calls, hooks } = recorder();
    gate.request();
    let passed = false;
    const passing = gate.pass(new AbortController().signal, hooks).then((paused) => (passed = paused));
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toEqual(['enter']);
    expect(passed).toBe(false);
    gate.release();
    await passing;
    expect(passed).toBe(true);
    expect(calls).toEqual(['enter', 'leave']);
    expect(gate.requested).toBe(false);
  });

  it('an abort (stop) wakes a paused step without running leave', async () => {
    const gate = new PauseGate();
    const { calls, hooks } = recorder();
    const controller = new AbortController();
    gate.request();
    const passing = gate.pass(controller.signal, hooks);
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    expect(await passing).toBe(true);
    expect(calls).toEqual(['enter']);
  });

  it('a release before the step reaches the gate cancels the pause; reset forgets a request', async () => {
    const gate = new PauseGate();
    const { calls, hooks } = recorder();
    gate.request();
    gate.release();
    expect(await gate.pass(new AbortController().signal, hooks)).toBe(false);
    gate.request();
    gate.reset();
    expect(await gate.pass(new AbortController().signal, hooks)).toBe(false);
    expect(calls).toEqual([]);
  });
});
