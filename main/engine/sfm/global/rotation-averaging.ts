/**
 * Rotation averaging over the view graph (Chatterjee and Govindu's scheme, as GLOMAP runs it):
 * start from a maximum spanning tree of the inlier counts, then minimise the relative rotations'
 * residuals on the Lie algebra, first in L1 (IRLS with 1 / |r| weights, which converges to the
 * L1 solution; one reweighted solve per relinearisation, so it takes more rounds than GLOMAP's 5
 * ADMM solves, each run to convergence), then with Geman-McClure weights. Edges whose residual stays above a threshold are
 * dropped and the averaging re-run (GLOMAP's relpose filter).
 *
 * Rotations are world to camera: X_cam = R_i X_world + t_i; an edge's R_ij maps camera i's frame
 * to camera j's, so R_j = R_ij R_i. With R_i <- R_i exp(x_i) (world-frame steps), the residual's
 * linearisation is x_j - x_i = log(R_j^T R_ij R_i): every IRLS step is one solveDifferences.
 * Deterministic: ties broken by image index, no random numbers.
 */
import { multiply3, transpose3, type Mat3 } from '../verify/dense.js';
import { solveDifferences, type DifferenceTerm } from './laplacian-solve.js';
import { rotationFromVector, rotationToVector } from './so3.js';

export interface RotationEdge {
  /** Node indices (0..nodeCount-1). */
  a: number;
  b: number;
  /** R_b = rotation R_a. */
  rotation: Mat3;
  weight: number;
}

export interface RotationAveragingOptions {
  l1Iterations: number;
  irlsIterations: number;
  lossDeg: number;
  /** Mean step (radians) below which the IRLS phase stops; the L1 phase stops at L1_CONVERGENCE_RAD, its job being only to reach the right basin. */
  convergence: number;
}

export const ROTATION_CONVERGENCE_RAD = 1e-7;
const L1_CONVERGENCE_RAD = 1e-4;

/** The root of the spanning tree and the tree's rotations, R_root = I. */
export function spanningTreeRotations(nodeCount: number, edges: readonly RotationEdge[]): { root: number; rotations: Mat3[] } {
  // Kruskal on weights, heaviest first (ties to the lower node pair): the best-supported edges
  // carry the start.
  const order = edges.map((_, k) => k).sort((x, y) => edges[y].weight - edges[x].weight || edges[x].a - edges[y].a || edges[x].b - edges[y].b);
  const parent = Array.from({ length: nodeCount }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const tree: number[][] = Array.from({ length: nodeCount }, () => []);
  for (const k of order) {
    const [ra, rb] = [find(edges[k].a), find(edges[k].b)];
    if (ra === rb) continue;
    parent[ra] = rb;
    tree[edges[k].a].push(k);
    tree[edges[k].b].push(k);
  }
  // Root: the node with the most tree weight around it (a well-connected image), ties to the lower.
  let root = 0;
  const around = (v: number) => tree[v].reduce((s, k) => s + edges[k].weight, 0);
  for (let v = 1; v < nodeCount; v++) if (around(v) > around(root)) root = v;
  const rotations: (Mat3 | undefined)[] = Array.from({ length: nodeCount }, () => undefined);
  rotations[root] = Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  const queue = [root];
  while (queue.length) {
    const v = queue.shift()!;
    for (const k of tree[v]) {
      const e = edges[k];
      const other = e.a === v ? e.b : e.a;
      if (rotations[other]) continue;
      rotations[other] = e.a === v ? multiply3(e.rotation, rotations[v]!) : multiply3(transpose3(e.rotation), rotations[v]!);
      queue.push(other);
    }
  }
  if (rotations.some((r) => !r)) throw new Error('rotation-averaging.ts: the view graph is not connected (the mapper keeps its largest component first)');
  return { root, rotations: rotations as Mat3[] };
}

/** |log(R_b^T R_ab R_a)| per edge, radians. */
export function rotationResiduals(rotations: readonly Mat3[], edges: readonly RotationEdge[]): Float64Array {
  return Float64Array.from(edges, (e) => Math.hypot(...rotationToVector(edgeError(rotations, e))));
}

function edgeError(rotations: readonly Mat3[], e: RotationEdge): Mat3 {
  return multiply3(multiply3(transpose3(rotations[e.b]), e.rotation), rotations[e.a]);
}

/**
 * Refines `start` (modified copy returned) over the edges. Weights: the edge's own (inlier count)
 * times the robust weight of its residual.
 */
export function averageRotations(start: readonly Mat3[], edges: readonly RotationEdge[], root: number, options: RotationAveragingOptions): { rotations: Mat3[]; l1Iterations: number; irlsIterations: number } {
  const rotations: Mat3[] = start.map((r) => Float64Array.from(r));
  const sigma = (options.lossDeg * Math.PI) / 180;
  // Normalised so that weights near 1 mean "full trust": the Laplacian's scale does not matter,
  // but a fixed floor on |r| does.
  const meanWeight = edges.reduce((s, e) => s + e.weight, 0) / Math.max(1, edges.length);
  const step = (robust: (residual: number) => number): number => {
    const terms: DifferenceTerm[] = edges.map((e) => {
      const r = rotationToVector(edgeError(rotations, e));
      return { a: e.a, b: e.b, scale: 1, target: r, weight: (e.weight / meanWeight) * robust(Math.hypot(...r)) };
    });
    const x = solveDifferences(rotations.length, terms, root);
    let total = 0;
    for (let v = 0; v < rotations.length; v++) {
      const w: [number, number, number] = [x[3 * v], x[3 * v + 1], x[3 * v + 2]];
      total += Math.hypot(...w);
      rotations[v] = multiply3(rotations[v], rotationFromVector(w));
    }
    return total / Math.max(1, rotations.length - 1);
  };
  let l1Iterations = 0;
  // L1 by IRLS: weight 1 / max(|r|, floor); the floor (1e-4 rad) keeps exact edges from dominating.
  while (l1Iterations < options.l1Iterations) {
    l1Iterations++;
    if (step((r) => 1 / Math.max(r, 1e-4)) < L1_CONVERGENCE_RAD) break;
  }
  let irlsIterations = 0;
  while (irlsIterations < options.irlsIterations) {
    irlsIterations++;
    if (step((r) => (sigma * sigma) / (r * r + sigma * sigma) ** 2 * sigma * sigma) < options.convergence) break;
  }
  return { rotations, l1Iterations, irlsIterations };
}
