/**
 * Geometric verification of many pairs: the matcher's raw matches (Uint32Array [i0, j0, i1, j1,
 * ...] of keypoint indices, main/engine/sfm/match.ts) turned into two-view geometries, and the
 * inlier graph over the images that the mapper (and the SfM report) reads.
 */
import type { ImagePair } from '../match-pairs.js';
import { estimateTwoViewGeometry, type TwoViewGeometry } from './two-view-geometry.js';
import { TwoViewConfiguration, type PinholeIntrinsics, type VerifyOptions } from './verify-options.js';

export interface VerifiedPair {
  pair: ImagePair;
  geometry: TwoViewGeometry;
  /** The inlier matches as keypoint index pairs [i, j, ...], a subset of the raw matches. */
  inlierMatches: Uint32Array;
}

/**
 * keypoints[image]: Float32Array, 4 per keypoint (x, y, scale, orientation: features.ts);
 * cameras[image]: its intrinsics, or undefined where unknown (then F, not E, for its pairs).
 */
export function verifyPairs(
  pairs: readonly ImagePair[],
  matches: readonly Uint32Array[],
  keypoints: readonly Float32Array[],
  cameras: readonly (PinholeIntrinsics | undefined)[] | undefined,
  options: Partial<VerifyOptions> = {},
  onPair?: (done: number, total: number) => void,
): VerifiedPair[] {
  checkMatchLists(pairs, matches);
  return pairs.map((pair, p) => {
    const input = pairInput(pair, matches[p], keypoints, cameras);
    const geometry = estimateTwoViewGeometry(input.points1, input.points2, input.cameras, options);
    onPair?.(p + 1, pairs.length);
    return verifiedPair(pair, matches[p], geometry);
  });
}

export function checkMatchLists(pairs: readonly ImagePair[], matches: readonly Uint32Array[]): void {
  if (pairs.length !== matches.length) throw new Error(`verify-pairs.ts: ${pairs.length} pairs but ${matches.length} match lists`);
}

/** What estimateTwoViewGeometry takes for one pair: all a worker thread needs (verify-pool.ts). */
export interface PairInput {
  points1: Float64Array;
  points2: Float64Array;
  /** Both cameras' intrinsics, or undefined where either is unknown (then F, not E). */
  cameras: [PinholeIntrinsics, PinholeIntrinsics] | undefined;
}

export function pairInput(pair: ImagePair, matches: Uint32Array, keypoints: readonly Float32Array[], cameras: readonly (PinholeIntrinsics | undefined)[] | undefined): PairInput {
  const [a, b] = pair;
  const [points1, points2] = matchedPoints(matches, keypoints[a], keypoints[b], pair);
  const cameraA = cameras?.[a];
  const cameraB = cameras?.[b];
  return { points1, points2, cameras: cameraA && cameraB ? [cameraA, cameraB] : undefined };
}

/** The pair's result: its geometry and the inlier matches as keypoint index pairs. */
export function verifiedPair(pair: ImagePair, matches: Uint32Array, geometry: TwoViewGeometry): VerifiedPair {
  const inlierMatches = new Uint32Array(2 * geometry.inliers.length);
  geometry.inliers.forEach((k, i) => inlierMatches.set(matches.subarray(2 * k, 2 * k + 2), 2 * i));
  return { pair, geometry, inlierMatches };
}

/** Pixel positions of both ends of every match, in match order. */
export function matchedPoints(matches: Uint32Array, keypoints1: Float32Array, keypoints2: Float32Array, pair: ImagePair): [Float64Array, Float64Array] {
  const n = matches.length / 2;
  const points1 = new Float64Array(2 * n);
  const points2 = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    const i = matches[2 * k];
    const j = matches[2 * k + 1];
    if (4 * i >= keypoints1.length || 4 * j >= keypoints2.length) {
      throw new Error(`verify-pairs.ts: match ${k} of pair (${pair[0]}, ${pair[1]}) names keypoint ${i} / ${j}, beyond the images' ${keypoints1.length / 4} / ${keypoints2.length / 4}`);
    }
    points1[2 * k] = keypoints1[4 * i];
    points1[2 * k + 1] = keypoints1[4 * i + 1];
    points2[2 * k] = keypoints2[4 * j];
    points2[2 * k + 1] = keypoints2[4 * j + 1];
  }
  return [points1, points2];
}

export interface InlierEdge {
  pair: ImagePair;
  inlierCount: number;
  configuration: TwoViewConfiguration;
}

/** Verified pairs as a graph: an edge per pair with at least minInliers inliers, not DEGENERATE. */
export class InlierGraph {
  private readonly edges = new Map<string, InlierEdge>();
  private readonly adjacency = new Map<number, Set<number>>();

  static fromVerified(verified: readonly VerifiedPair[], minInliers: number): InlierGraph {
    const graph = new InlierGraph();
    for (const { pair, geometry } of verified) {
      if (geometry.configuration === TwoViewConfiguration.DEGENERATE || geometry.inliers.length < minInliers) continue;
      graph.add({ pair, inlierCount: geometry.inliers.length, configuration: geometry.configuration });
    }
    return graph;
  }

  add(edge: InlierEdge): void {
    const [a, b] = edge.pair;
    this.edges.set(key(a, b), edge);
    for (const [from, to] of [[a, b], [b, a]]) {
      if (!this.adjacency.has(from)) this.adjacency.set(from, new Set());
      this.adjacency.get(from)!.add(to);
    }
  }

  edge(a: number, b: number): InlierEdge | undefined {
    return this.edges.get(key(a, b));
  }

  neighbours(image: number): number[] {
    return [...(this.adjacency.get(image) ?? [])].sort((x, y) => x - y);
  }

  allEdges(): InlierEdge[] {
    return [...this.edges.values()];
  }

  /** Images with no verified pair among those given: the "failed to match" list of the SfM report. */
  isolated(images: number): number[] {
    return Array.from({ length: images }, (_, i) => i).filter((i) => !this.adjacency.has(i));
  }
}

function key(a: number, b: number): string {
  return a < b ? `${a},${b}` : `${b},${a}`;
}
