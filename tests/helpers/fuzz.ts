/**
 * Bounded fuzzing: random mutations and truncations of valid inputs. A target must accept a
 * mutation or reject it with a clean ArgonautError (bad_input, or not_found where a file is
 * named): never another exception, never a hang. Each target runs a fixed number of iterations
 * or until its time budget is spent, whichever comes first.
 */
import { ArgonautError } from '../../shared/rpc/errors.js';
import { rng } from './random.js';

export function mutate(bytes: Uint8Array, random: () => number): Uint8Array {
  const out = new Uint8Array(bytes); // a copy (Buffer.slice would share memory with `bytes`)
  const pick = (n: number): number => Math.floor(random() * n);
  switch (pick(5)) {
    case 0: // truncate
      return out.subarray(0, pick(out.length));
    case 1: // flip a few random bytes
      for (let i = 0, n = 1 + pick(8); i < n; i++) out[pick(out.length)] = pick(256);
      return out;
    case 2: {
      // overwrite 8 aligned bytes with an extreme value (counts, sizes, doubles)
      const at = pick(Math.max(1, out.length - 8));
      const extremes = [0xff, 0x7f, 0x00, 0x80];
      out.fill(extremes[pick(extremes.length)], at, Math.min(out.length, at + 8));
      return out;
    }
    case 3: {
      // delete a span
      const at = pick(out.length);
      return Uint8Array.from([...out.subarray(0, at), ...out.subarray(at + 1 + pick(16))]);
    }
    default: {
      // insert random bytes
      const at = pick(out.length);
      return Uint8Array.from([...out.subarray(0, at), ...Array.from({ length: 1 + pick(16) }, () => pick(256)), ...out.subarray(at)]);
    }
  }
}

export interface FuzzOptions {
  iterations?: number;
  budgetMs?: number;
  /** Error codes that count as clean rejections (default bad_input). */
  codes?: readonly string[];
}

/** Runs `target` on mutations; returns how many were accepted, rejected, and iterations run. */
export async function fuzz(seed: number, valid: Uint8Array, target: (bytes: Uint8Array) => unknown, options: FuzzOptions = {}): Promise<{ ok: number; rejected: number; runs: number }> {
  const random = rng(seed);
  const start = performance.now();
  const codes = options.codes ?? ['bad_input'];
  let ok = 0;
  let rejected = 0;
  let runs = 0;
  for (; runs < (options.iterations ?? 400) && performance.now() - start < (options.budgetMs ?? 4000); runs++) {
    const input = mutate(valid, random);
    try {
      await target(input);
      ok++;
    } catch (error) {
      if (!(error instanceof ArgonautError) || !codes.includes(error.code)) {
        throw new Error(`seed ${seed}, iteration ${runs}: ${error instanceof Error ? error.stack : String(error)}`);
      }
      rejected++;
    }
  }
  return { ok, rejected, runs };
}
