/**
 * A training configuration that cannot start within the GPU memory budget: refused before any
 * step (bad_input, CLI exit 3) with the numbers, so the user knows how far off it is and which
 * knob to turn. The project run restores its manifest on this refusal (`refusedAtStart` in the
 * details): a start that never happened leaves no trace.
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { formatBytes, type GpuOutOfMemoryError } from '../gpu/memory.js';

export interface StartRefusalDetails {
  refusedAtStart: true;
  /** Bytes the set-up had allocated when it was refused, with the refused allocation: at least this much is needed. */
  neededBytes: number;
  /** Bytes alive (the set-up's and anything else's) when it was refused, and the budget. */
  liveBytes: number;
  budgetBytes: number | null;
  refusedBy: 'budget' | 'driver';
  what: string;
}

export function refusedAtStart(error: GpuOutOfMemoryError, dataName: string, neededBytes: number): ArgonautError {
  const r = error.refusal;
  const budget = Number.isFinite(r.budgetBytes) ? r.budgetBytes : null;
  const over = r.refusedBy === 'budget' ? `the GPU memory budget is ${formatBytes(r.budgetBytes)} (${r.budgetBytes} bytes, --gpu-memory-budget / ARGONAUT_GPU_MEMORY_BUDGET)` : 'the driver refused the allocation';
  const message = `${dataName}: training cannot start within GPU memory: its set-up needs at least ${formatBytes(neededBytes)} (${neededBytes} bytes; refused at ${r.what}, ${formatBytes(r.liveBytes)} already allocated) and ${over}. Lower --max-splats or --init-points, --downscale the images, or raise the budget.`;
  const details: StartRefusalDetails = { refusedAtStart: true, neededBytes, liveBytes: r.liveBytes, budgetBytes: budget, refusedBy: r.refusedBy, what: r.what };
  return new ArgonautError('bad_input', message, details);
}

/** Whether an error is a start refused for GPU memory (the project run then leaves its manifest as it was). */
export function isStartRefusal(error: unknown): boolean {
  return error instanceof ArgonautError && error.code === 'bad_input' && (error.details as Partial<StartRefusalDetails> | undefined)?.refusedAtStart === true;
}

/** More initial splats than one binding holds the SH of (memory-growth.ts capacityBindingLimit): refused, as a start that cannot fit. */
export function refusedByBinding(dataName: string, count: number, limit: number, bindingBytes: number): ArgonautError {
  const details: StartRefusalDetails = { refusedAtStart: true, neededBytes: 0, liveBytes: 0, budgetBytes: null, refusedBy: 'budget', what: `the SH of ${count} initial splats` };
  return new ArgonautError('bad_input', `${dataName}: training cannot start: its ${count} initial splats need more SH than one GPU binding holds (${bindingBytes} bytes: at most ${limit} splats at this SH degree). Lower --init-points or the SH degree.`, details);
}
