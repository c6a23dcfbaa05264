/**
 * Tracks: the view graph's inlier matches joined by union-find over (image, keypoint), so a
 * keypoint matched in several pairs links one 3D point across all of their images. A track that
 * reaches two keypoints of one image is inconsistent (some match in it is wrong, and which one is
 * unknown) and is dropped whole, as GLOMAP's track establishment does.
 */
import type { ViewEdge } from './view-graph.js';

export interface Observation {
  image: number;
  keypoint: number;
}

export interface TrackSet {
  /** Each track's observations, by ascending image. */
  tracks: Observation[][];
  /** Tracks dropped for holding two keypoints of one image. */
  inconsistent: number;
}

/** keypointCounts[image]: how many keypoints that image has (bounds the node ids). */
export function buildTracks(keypointCounts: readonly number[], edges: readonly ViewEdge[]): TrackSet {
  const offsets = new Array<number>(keypointCounts.length + 1).fill(0);
  for (let i = 0; i < keypointCounts.length; i++) offsets[i + 1] = offsets[i] + keypointCounts[i];
  const parent = new Int32Array(offsets[keypointCounts.length]).fill(-1); // -1: in no match
  const find = (v: number): number => {
    while (parent[v] !== v) v = parent[v] = parent[parent[v]];
    return v;
  };
  const node = (image: number, keypoint: number, edge: ViewEdge): number => {
    if (keypoint >= keypointCounts[image]) {
      throw new Error(`tracks.ts: pair (${edge.first}, ${edge.second}) names keypoint ${keypoint} of image ${image}, which has ${keypointCounts[image]}`);
    }
    const v = offsets[image] + keypoint;
    if (parent[v] < 0) parent[v] = v;
    return v;
  };
  for (const edge of edges) {
    const m = edge.inlierMatches;
    for (let k = 0; k < m.length; k += 2) {
      const ra = find(node(edge.first, m[k], edge));
      const rb = find(node(edge.second, m[k + 1], edge));
      if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb); // lower root: same tracks in any edge order
    }
  }
  const byRoot = new Map<number, Observation[]>();
  let image = 0;
  for (let v = 0; v < parent.length; v++) {
    if (parent[v] < 0) continue;
    while (v >= offsets[image + 1]) image++;
    const root = find(v);
    let track = byRoot.get(root);
    if (!track) byRoot.set(root, (track = []));
    track.push({ image, keypoint: v - offsets[image] });
  }
  const tracks: Observation[][] = [];
  let inconsistent = 0;
  for (const track of byRoot.values()) {
    // Nodes are visited by ascending image, so a repeated image is a repeated neighbour.
    if (track.some((o, k) => k > 0 && track[k - 1].image === o.image)) inconsistent++;
    else if (track.length >= 2) tracks.push(track);
  }
  return { tracks, inconsistent };
}
