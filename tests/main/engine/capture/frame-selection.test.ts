import { describe, expect, it } from 'vitest';
import { selectFrames, type ScoredFrame } from '../../../../main/engine/capture/frame-selection.js';
import type { GreyImage } from '../../../../main/engine/capture/sharpness.js';

/** A distinct 4x4 thumbnail per "view" (views that differ by 50 grey levels everywhere). */
function view(id: number): GreyImage {
  return { width: 4, height: 4, data: new Uint8Array(16).fill((id * 50) % 256) };
}

function frames(scores: number[], views: number[] = scores.map((_, i) => i), fps = 10): ScoredFrame[] {
  return scores.map((sharpness, index) => ({ index, timeS: index / fps, sharpness, thumbnail: view(views[index]) }));
}

describe('frame selection', () => {
  it('takes the sharpest frame of each of N equal time segments', () => {
    // 12 frames, 4 segments of 3: the best of each triple is at a different position.
    const scores = [5, 9, 4, /**/ 8, 2, 3, /**/ 1, 2, 7, /**/ 6, 9.5, 6];
    const s = selectFrames(frames(scores), { count: 4, blurRatio: 0 });
    expect(s.selected.map((f) => f.index)).toEqual([1, 3, 8, 10]);
    expect(s.segments).toBe(4);
    expect(s.dropped).toEqual([]);
  });

  it('segments by time, not by frame count: a gap in timestamps leaves its segment empty', () => {
    const f = frames([5, 6, 7, 8]);
    f[2].timeS = 3.0; // frames at 0, 0.1, 3.0, 3.1 over a 4 s clip
    f[3].timeS = 3.1;
    const s = selectFrames(f, { count: 4, durationS: 4, blurRatio: 0 });
    expect(s.selected.map((x) => x.index)).toEqual([1, 3]);
  });

  it('never asks for more segments than there are frames', () => {
    const s = selectFrames(frames([3, 4, 5]), { count: 50, blurRatio: 0 });
    expect(s.segments).toBe(3);
    expect(s.selected).toHaveLength(3);
  });

  it('drops picks far below the clip median as blurry, and says by how much', () => {
    // Median 10; segment 2 (frames 4, 5) peaks at 3 = 0.3 x median.
    const scores = [10, 11, 10, 12, 3, 2, 10, 10, 11, 10];
    const s = selectFrames(frames(scores), { count: 5, blurRatio: 0.35 });
    expect(s.selected.map((f) => f.index)).toEqual([1, 3, 6, 8]);
    expect(s.dropped).toEqual([{ index: 4, timeS: 0.4, reason: 'blurry', value: 0.3 }]);
  });

  it('drops a pick whose thumbnail repeats the previous kept one (a camera standing still)', () => {
    // Views 0 0 0 0 1 2: the first four frames are the same picture.
    const s = selectFrames(frames([5, 6, 5, 6, 5, 6], [0, 0, 0, 0, 1, 2]), { count: 6, blurRatio: 0 });
    expect(s.selected.map((f) => f.index)).toEqual([0, 4, 5]);
    expect(s.dropped.map((d) => [d.index, d.reason, d.of])).toEqual([[1, 'duplicate', 0], [2, 'duplicate', 0], [3, 'duplicate', 0]]);
  });

  it('is empty for no frames', () => {
    expect(selectFrames([], { count: 10 })).toMatchObject({ selected: [], dropped: [], segments: 0 });
  });
});
