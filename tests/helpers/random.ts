/**
 * Seeded random numbers for tests. Every run draws a fresh seed (printed on failure through the
 * test name or message) unless ARGONAUT_TEST_SEED pins one to reproduce a failure.
 */
import { seededRandom } from '../../shared/random.js';

/** A seed for this run: ARGONAUT_TEST_SEED when set, else a fresh one. */
export function freshSeed(): number {
  const pinned = process.env.ARGONAUT_TEST_SEED;
  if (pinned) return Number(pinned) >>> 0;
  return (Math.random() * 2 ** 32) >>> 0;
}

/** Uniform draws in [0, 1) from `seed`: the project's one generator (shared/random.ts, mulberry32). */
export const rng: (seed: number) => () => number = seededRandom;
