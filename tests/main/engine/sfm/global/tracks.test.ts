import { describe, expect, it } from 'vitest';
import { buildTracks } from '../../../../../main/engine/sfm/global/tracks.js';
import type { ViewEdge } from '../../../../../main/engine/sfm/global/view-graph.js';
import { TwoViewConfiguration } from '../../../../../main/engine/sfm/verify/verify-options.js';

function edge(first: number, second: number, matches: number[]): ViewEdge {
  return { first, second, rotation: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), translation: [1, 0, 0], inlierCount: matches.length / 2, inlierMatches: Uint32Array.from(matches), configuration: TwoViewConfiguration.CALIBRATED };
}

describe('tracks', () => {
  it('joins matches through shared keypoints into one track per point, by ascending image', () => {
    // Point A: 0:1 - 1:4 - 2:0; point B: 0:2 - 1:0, 1:0 - 3:5 (chained through image 1).
    const { tracks, inconsistent } = buildTracks([3, 5, 2, 6], [edge(0, 1, [1, 4, 2, 0]), edge(1, 2, [4, 0]), edge(1, 3, [0, 5])]);
    expect(inconsistent).toBe(0);
    const sorted = tracks.map((t) => t.map((o) => `${o.image}:${o.keypoint}`).join(' ')).sort();
    expect(sorted).toEqual(['0:1 1:4 2:0', '0:2 1:0 3:5']);
  });

  it('drops a track that reaches two keypoints of one image, and keeps the rest', () => {
    // 0:0 - 1:0 - 2:0 - 0:1 closes a loop back into image 0 on another keypoint.
    const { tracks, inconsistent } = buildTracks([2, 2, 2], [edge(0, 1, [0, 0, 1, 1]), edge(1, 2, [0, 0]), edge(0, 2, [1, 0])]);
    expect(inconsistent).toBe(1);
    expect(tracks).toEqual([]);
    const kept = buildTracks([2, 2, 2], [edge(0, 1, [0, 0, 1, 1]), edge(1, 2, [0, 0])]);
    expect(kept.inconsistent).toBe(0);
    expect(kept.tracks).toHaveLength(2);
  });

  it('gives the same tracks whatever the edge order', () => {
    const edges = [edge(0, 1, [0, 1, 1, 2, 2, 0]), edge(1, 2, [1, 1, 2, 2]), edge(0, 2, [0, 1, 1, 2])];
    const a = buildTracks([3, 3, 3], edges).tracks;
    const b = buildTracks([3, 3, 3], [...edges].reverse()).tracks;
    expect(new Set(b.map((t) => JSON.stringify(t)))).toEqual(new Set(a.map((t) => JSON.stringify(t))));
  });

  it('names the pair and keypoint when a match points past an image', () => {
    expect(() => buildTracks([2, 2], [edge(0, 1, [0, 7])])).toThrow(/tracks\.ts: pair \(0, 1\) names keypoint 7 of image 1, which has 2/);
  });
});
