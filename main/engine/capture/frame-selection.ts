/**
 * Which video frames become images: the sharpest frame of each of N equal time segments, then
 * blurry picks and near-duplicates dropped. Pure (no I/O), so the rules are tested on numbers.
 *
 * Blur is judged relative to the clip (variance of the Laplacian depends on the scene's texture
 * as much as on focus): a pick is blurry when its score is below `blurRatio` x the median score of
 * all the clip's frames, i.e. a segment in which every frame is much softer than the clip's
 * typical frame (a fast pan, a focus hunt). Duplicates are picks whose thumbnail differs from the
 * previous kept pick by less than `duplicateThreshold` grey levels on average (a camera standing
 * still adds views that carry no new geometry and bias the trainer).
 */
import { meanAbsDifference, type GreyImage } from './sharpness.js';
import { median } from '../../../shared/math/median.js';

export interface ScoredFrame {
  /** Frame number in decode order (0-based). */
  index: number;
  timeS: number;
  /** Variance of the Laplacian (sharpness.ts). */
  sharpness: number;
  thumbnail: GreyImage;
}

export interface SelectionOptions {
  /** Target number of frames (the most that are kept). */
  count: number;
  /** Clip length in seconds; defaults to the last frame's time plus one frame interval. */
  durationS?: number;
  /** Picks below this fraction of the clip's median sharpness are dropped. Default 0.35. */
  blurRatio?: number;
  /** Mean absolute thumbnail difference (grey levels) under which a pick duplicates the previous one. Default 1.5. */
  duplicateThreshold?: number;
}

export interface DroppedFrame {
  index: number;
  timeS: number;
  reason: 'blurry' | 'duplicate';
  /** blurry: score / clip median; duplicate: the mean absolute difference to the kept frame. */
  value: number;
  /** duplicate: the kept frame it repeats. */
  of?: number;
}

export interface Selection {
  selected: ScoredFrame[];
  dropped: DroppedFrame[];
  medianSharpness: number;
  segments: number;
}

export const DEFAULT_BLUR_RATIO = 0.35;
export const DEFAULT_DUPLICATE_THRESHOLD = 1.5;

export function selectFrames(frames: readonly ScoredFrame[], options: SelectionOptions): Selection {
  const count = Math.max(1, Math.floor(options.count));
  const blurRatio = options.blurRatio ?? DEFAULT_BLUR_RATIO;
  const duplicateThreshold = options.duplicateThreshold ?? DEFAULT_DUPLICATE_THRESHOLD;
  const ordered = [...frames].sort((a, b) => a.timeS - b.timeS || a.index - b.index);
  const medianSharpness = median(ordered.map((f) => f.sharpness));
  if (ordered.length === 0) return { selected: [], dropped: [], medianSharpness, segments: 0 };

  const start = ordered[0].timeS;
  const last = ordered[ordered.length - 1].timeS;
  const interval = ordered.length > 1 ? median(ordered.slice(1).map((f, i) => f.timeS - ordered[i].timeS)) : 1;
  const end = Math.max(options.durationS ?? 0, last + interval);
  const span = end - start > 0 ? end - start : 1;
  const segments = Math.min(count, ordered.length);
  const best: (ScoredFrame | undefined)[] = new Array(segments);
  for (const frame of ordered) {
    // The epsilon keeps a frame exactly on a boundary (0.3 s of 1.2 s in 4) out of the segment before it.
    const s = Math.min(segments - 1, Math.max(0, Math.floor(((frame.timeS - start) / span) * segments + 1e-9)));
    const current = best[s];
    if (!current || frame.sharpness > current.sharpness) best[s] = frame;
  }

  const selected: ScoredFrame[] = [];
  const dropped: DroppedFrame[] = [];
  for (const pick of best) {
    if (!pick) continue;
    const relative = medianSharpness > 0 ? pick.sharpness / medianSharpness : 1;
    if (relative < blurRatio) {
      dropped.push({ index: pick.index, timeS: pick.timeS, reason: 'blurry', value: relative });
      continue;
    }
    const previous = selected[selected.length - 1];
    if (previous) {
      const difference = meanAbsDifference(previous.thumbnail, pick.thumbnail);
      if (difference < duplicateThreshold) {
        dropped.push({ index: pick.index, timeS: pick.timeS, reason: 'duplicate', value: difference, of: previous.index });
        continue;
      }
    }
    selected.push(pick);
  }
  return { selected, dropped, medianSharpness, segments };
}
