/**
 * Seeded random numbers for tests. Every run draws a fresh seed (printed on failure through the
 * test name or message) unless ARGONAUT_TEST_SEED pins one to reproduce a failure.
 */
export function freshSeed(): number {
  const pinned = process.env.ARGONAUT_TEST_SEED;
  if (pinned) return Number(pinned) >>> 0;
  return (Math.random() * 2 ** 32) >>> 0;
}

/** mulberry32: small, fast, good enough for test data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
