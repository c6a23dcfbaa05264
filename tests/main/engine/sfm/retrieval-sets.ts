/**
 * Synthetic image sets whose true neighbours are known: an image is made of noisy copies of the
 * landmark descriptors of what it sees, plus clutter of its own. Photos see one place each (the
 * same place: true pairs); video frames walk a loop of positions twice, each seeing its own and
 * the next positions' landmarks, so frames one lap apart are true loop pairs.
 */
import { randomDescriptor } from '../../../parity/match.parity.js';

export interface SyntheticImage {
  descriptors: Uint8Array;
}

function landmarks(random: () => number, count: number): Uint8Array[] {
  return Array.from({ length: count }, () => randomDescriptor(random));
}

/** A landmark seen again: every byte moved by up to +-6 (a descriptor's change between views). */
function observe(random: () => number, landmark: Uint8Array): Uint8Array {
  return landmark.map((x) => Math.max(0, Math.min(255, x + Math.round((random() - 0.5) * 12))));
}

function image(random: () => number, seen: readonly Uint8Array[], features: number, clutterShare: number): SyntheticImage {
  const descriptors = new Uint8Array(features * 128);
  for (let f = 0; f < features; f++) descriptors.set(random() < clutterShare ? randomDescriptor(random) : observe(random, seen[Math.floor(random() * seen.length)]), f * 128);
  return { descriptors };
}

/** `places` x `perPlace` photos, in shuffled order; `place[i]` is image i's place. */
export function photoSet(random: () => number, places: number, perPlace: number, features = 80, clutterShare = 0.4): { images: SyntheticImage[]; place: number[] } {
  const pools = Array.from({ length: places }, () => landmarks(random, 40));
  const place = Array.from({ length: places * perPlace }, (_, i) => i % places);
  for (let i = place.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [place[i], place[j]] = [place[j], place[i]];
  }
  return { images: place.map((p) => image(random, pools[p], features, clutterShare)), place };
}

/** Two laps of `positions` frames; frame t sees positions t .. t + 2 (mod positions). */
export function loopVideo(random: () => number, positions: number, features = 80, clutterShare = 0.4): SyntheticImage[] {
  const pools = Array.from({ length: positions }, () => landmarks(random, 15));
  return Array.from({ length: 2 * positions }, (_, t) => image(random, [0, 1, 2].flatMap((d) => pools[(t + d) % positions]), features, clutterShare));
}

/** Share of `truth` found in `pairs`. */
export function recall(pairs: readonly (readonly [number, number])[], truth: readonly (readonly [number, number])[]): number {
  const have = new Set(pairs.map(([i, j]) => `${i},${j}`));
  return truth.filter(([i, j]) => have.has(`${i},${j}`)).length / truth.length;
}
