/**
 * Which keypoints an image keeps when it has more than it may: the strongest by |DoG| response,
 * spread over the image by a grid, so a textured corner does not take the whole budget. Each cell
 * (about 16 keypoints' worth of the budget) first keeps its own strongest up to its share; what
 * is left of the budget goes to the strongest of the rest, wherever they are. Ties go to the
 * earlier keypoint in the input's (sorted) order, so the choice is reproducible.
 */
export interface Scored {
  /** Position in image pixels. */
  x: number;
  y: number;
  response: number;
}

const KEYPOINTS_PER_CELL = 16;

/** Which pixels may hold keypoints: one byte per pixel, row-major, 0 = none here (COLMAP's mask convention). */
export interface KeypointMask {
  width: number;
  height: number;
  keep: Uint8Array;
}

/**
 * Indices of the keypoints on kept pixels of `mask` (all without one). A keypoint at (x, y) in
 * image pixels (first pixel's centre at 0) lies on pixel (floor(x + 0.5), floor(y + 0.5)): COLMAP's
 * MaskKeypoints reads the pixel under int(x) of its 0.5-offset position, and drops keypoints
 * outside the mask. Applied before the budget, so the budget goes to the kept pixels (COLMAP masks
 * after its budget).
 */
export function unmasked(keypoints: readonly Scored[], mask: KeypointMask | undefined): number[] {
  const all = keypoints.map((_, i) => i);
  if (!mask) return all;
  return all.filter((i) => {
    const px = Math.floor(keypoints[i].x + 0.5);
    const py = Math.floor(keypoints[i].y + 0.5);
    return px >= 0 && py >= 0 && px < mask.width && py < mask.height && mask.keep[py * mask.width + px] !== 0;
  });
}

/** Indices of the keypoints kept, in input order. */
export function selectSpread(keypoints: readonly Scored[], width: number, height: number, budget: number): number[] {
  if (keypoints.length <= budget) return keypoints.map((_, i) => i);
  const cells = Math.max(1, Math.floor(budget / KEYPOINTS_PER_CELL));
  const side = Math.sqrt((width * height) / cells);
  const columns = Math.max(1, Math.round(width / side));
  const rows = Math.max(1, Math.round(height / side));
  const share = Math.max(1, Math.floor(budget / (columns * rows)));
  const order = keypoints.map((_, i) => i).sort((a, b) => keypoints[b].response - keypoints[a].response || a - b);
  const taken = new Uint8Array(keypoints.length);
  const perCell = new Uint32Array(columns * rows);
  let kept = 0;
  for (const i of order) {
    if (kept >= budget) break;
    const cx = Math.min(columns - 1, Math.max(0, Math.floor((keypoints[i].x / width) * columns)));
    const cy = Math.min(rows - 1, Math.max(0, Math.floor((keypoints[i].y / height) * rows)));
    if (perCell[cy * columns + cx] >= share) continue;
    perCell[cy * columns + cx]++;
    taken[i] = 1;
    kept++;
  }
  for (const i of order) {
    if (kept >= budget) break;
    if (taken[i]) continue;
    taken[i] = 1;
    kept++;
  }
  return keypoints.map((_, i) => i).filter((i) => taken[i]);
}
