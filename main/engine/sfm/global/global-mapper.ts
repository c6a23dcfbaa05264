/**
 * Global mapping (GLOMAP's pipeline of named stages, each its own module): view graph ->
 * rotation averaging (with the relpose filter) -> positioning of cameras from the pairs'
 * directions -> tracks -> joint positioning of cameras and points from camera-to-point rays ->
 * triangulation with COLMAP's filters. Float64 on the CPU. What comes out is what bundle
 * adjustment and the COLMAP model writer take next: world-to-camera poses per image, points with
 * their observations, and every image left out with the reason.
 */
import { Random } from '../../../../shared/random.js';
import { applyMat3, normalise3, transpose3, type Mat3, type Vec3 } from '../verify/dense.js';
import type { PinholeIntrinsics } from '../verify/verify-options.js';
import type { VerifiedPair } from '../verify/verify-pairs.js';
import { positionNodes, type DirectionConstraint } from './global-positioning.js';
import { refinePositions } from './position-refinement.js';
import { MAPPING_DEFAULTS, type MappingOptions, type UnregisteredImage } from './mapping-options.js';
import { averageRotations, rotationResiduals, spanningTreeRotations, ROTATION_CONVERGENCE_RAD, type RotationEdge } from './rotation-averaging.js';
import { translationFromCentre } from './so3.js';
import { buildTracks, type Observation } from './tracks.js';
import { triangulateTrack, type CameraPose, type TriangulatedPoint } from './triangulate.js';
import { buildViewGraph, keepLargestComponent, type DroppedEdge, type ViewGraph } from './view-graph.js';
import { calibrateViewGraph, type ViewGraphCalibrationStats } from './view-graph-calibration.js';

export interface GlobalMappingInput {
  imageCount: number;
  verified: readonly VerifiedPair[];
  /** Per image: x, y, scale, orientation per keypoint (features.ts). */
  keypoints: readonly Float32Array[];
  /** Per image (a shared camera is the same object repeated). */
  cameras: readonly PinholeIntrinsics[];
  /** Per image: true where the focal is a prior (EXIF), held by view-graph calibration. Absent: every focal is a guess. */
  focalKnown?: readonly boolean[];
}

export interface MappingStats {
  /** Wall milliseconds per stage. */
  stageMs: Record<'calibration' | 'viewGraph' | 'rotations' | 'positions' | 'tracks' | 'points' | 'triangulation', number>;
  /** Edges with a relative pose in the largest component, before the rotation filter. */
  edgesInComponent: number;
  edgesUsed: number;
  rotationRounds: number;
  /** After the last round, degrees. */
  rotationResidualDeg: { median: number; max: number };
  positioningIterations: { cameras: number; points: number; refinement: number };
  tracks: number;
  inconsistentTracks: number;
  /** Tracks not triangulated, by reason. */
  rejectedTracks: Record<string, number>;
  meanReprojectionErrorPx: number;
  /** Absent when the option is off. */
  calibration?: ViewGraphCalibrationStats;
}

export interface GlobalMappingResult {
  /** Per image; undefined for the unregistered. */
  poses: (CameraPose | undefined)[];
  points: TriangulatedPoint[];
  /**
   * Per image, the intrinsics the poses and points were made with (view-graph calibration's
   * focals); a shared camera stays one object. Optional only for results read back from a mapping
   * file that predates it (capture's resume); globalMapping always sets it.
   */
  cameras?: PinholeIntrinsics[];
  /** Every established track (before triangulation's filters). */
  tracks: Observation[][];
  unregistered: UnregisteredImage[];
  droppedEdges: DroppedEdge[];
  stats: MappingStats;
}

export function globalMapping(input: GlobalMappingInput, options: Partial<MappingOptions> = {}): GlobalMappingResult {
  const o = { ...MAPPING_DEFAULTS, ...options };
  const { imageCount, keypoints } = input;
  if (imageCount < 2) throw new Error(`global-mapper.ts: ${imageCount} image(s); mapping needs at least 2 that overlap (add photos of the same scene from other viewpoints)`);
  if (keypoints.length !== imageCount || input.cameras.length !== imageCount) {
    throw new Error(`global-mapper.ts: ${imageCount} images but ${keypoints.length} keypoint lists and ${input.cameras.length} cameras`);
  }
  const stageMs = { calibration: 0, viewGraph: 0, rotations: 0, positions: 0, tracks: 0, points: 0, triangulation: 0 };
  const timed = <T>(stage: keyof typeof stageMs, run: () => T): T => {
    const started = performance.now();
    const value = run();
    stageMs[stage] += performance.now() - started;
    return value;
  };

  const calibration = o.viewGraphCalibration ? timed('calibration', () => calibrateViewGraph(input, o)) : undefined;
  const cameras = calibration?.cameras ?? input.cameras;
  const verified = calibration ? input.verified.filter((_, k) => !calibration.flagged.has(k)) : input.verified;
  let graph = timed('viewGraph', () => buildViewGraph({ ...input, cameras, verified, minInliers: o.minInliers }));
  graph.droppedEdges.push(...(calibration?.flagged.values() ?? []));
  const edgesInComponent = graph.edges.length;
  if (graph.images.length < 2) throw new Error(noGraphMessage(input, graph, o.minInliers));

  // Rotations, dropping edges that disagree and re-averaging, until none does (or 4 rounds).
  let rotations = new Map<number, Mat3>();
  let rounds = 0;
  let residualsDeg = new Float64Array(0);
  timed('rotations', () => {
    for (;;) {
      rounds++;
      const { nodes, edges } = rotationProblem(graph);
      const tree = spanningTreeRotations(nodes.length, edges);
      const averaged = averageRotations(tree.rotations, edges, tree.root, {
        l1Iterations: o.rotationL1Iterations,
        irlsIterations: o.rotationIrlsIterations,
        lossDeg: o.rotationLossDeg,
        convergence: ROTATION_CONVERGENCE_RAD,
      });
      rotations = new Map(nodes.map((image, v) => [image, averaged.rotations[v]]));
      residualsDeg = rotationResiduals(averaged.rotations, edges).map((r) => (r * 180) / Math.PI);
      const bad = graph.edges.filter((_, k) => residualsDeg[k] > o.maxRotationResidualDeg);
      if (bad.length === 0 || rounds === 4) break;
      const dropped = [...graph.droppedEdges, ...bad.map((e) => ({ first: e.first, second: e.second, reason: `relative rotation ${residualsDeg[graph.edges.indexOf(e)].toFixed(1)} deg from the averaged rotations` }))];
      const next = keepLargestComponent(imageCount, graph.edges.filter((e) => !bad.includes(e)), dropped, graph.unregistered, 'pair whose rotation agrees with the others');
      if (next.images.length < 2) throw new Error(`global-mapper.ts: no two images keep a relative rotation that agrees with the averaged rotations (${bad.length} pairs disagree by more than ${o.maxRotationResidualDeg} deg); the matches are likely wrong: try more overlap between images`);
      graph = next;
    }
  });

  // Cameras from the pairs' directions: only edges with a baseline place cameras.
  const placed = keepLargestComponent(imageCount, graph.edges.filter((e) => e.translation), graph.droppedEdges, graph.unregistered, 'pair with a baseline (not panoramic)');
  if (placed.images.length < 2) throw new Error('global-mapper.ts: every pair that joins the images is a pure rotation (panoramic), so no camera position can be found: move the camera between shots, not only turn it');
  graph = { ...placed, edges: graph.edges.filter((e) => placed.images.includes(e.first) && placed.images.includes(e.second)) };
  const cameraIndex = new Map(graph.images.map((image, v) => [image, v]));
  const root = mostConnected(graph, cameraIndex);
  const cameraStage = timed('positions', () => {
    const constraints: DirectionConstraint[] = graph.edges.filter((e) => e.translation).map((e) => {
      const direction = applyMat3(transpose3(rotations.get(e.second)!), e.translation!);
      return { from: cameraIndex.get(e.first)!, to: cameraIndex.get(e.second)!, direction: [-direction[0], -direction[1], -direction[2]] as Vec3, weight: 1 };
    });
    const random = new Random(o.seed);
    const start = Float64Array.from({ length: 3 * graph.images.length }, () => random.next() * 2 - 1);
    const rounds = positionNodes(graph.images.length, graph.images.length, constraints, start, root, positioningOptions(o, 50));
    // LM finishes what the linearly converging rounds leave (cheap here: no points).
    const refined = refinePositions(graph.images.length, constraints, rounds.positions, root, { iterations: o.refinementIterations, loss: o.positioningLoss, tolerance: o.refinementTolerance });
    return { positions: refined.positions, iterations: rounds.iterations };
  });
  let centres = cameraStage.positions;

  const { tracks, inconsistent } = timed('tracks', () => buildTracks(keypoints.map((k) => k.length / 4), graph.edges));
  const pixel = (ob: Observation): [number, number] => [keypoints[ob.image][4 * ob.keypoint], keypoints[ob.image][4 * ob.keypoint + 1]];
  const rayOf = (ob: Observation): Vec3 => {
    const camera = cameras[ob.image];
    const [x, y] = pixel(ob);
    return normalise3(applyMat3(transpose3(rotations.get(ob.image)!), [(x - camera.principalX) / camera.focalX, (y - camera.principalY) / camera.focalY, 1]));
  };
  let pointIterations = 0;
  let refinementIterations = 0;
  if (o.positionWithPoints && tracks.length > 0) {
    centres = timed('points', () => {
      const n = graph.images.length;
      const constraints: DirectionConstraint[] = [];
      const start: number[] = Array.from(centres);
      positioningTracks(tracks, n, cameraIndex, o).forEach((track, k) => {
        const rays = track.map((ob) => ({ centre: centreOf(centres, cameraIndex.get(ob.image)!), direction: rayOf(ob) }));
        start.push(...closestPointToRays(rays));
        for (let m = 0; m < track.length; m++) constraints.push({ from: cameraIndex.get(track[m].image)!, to: n + k, direction: rays[m].direction, weight: 1 });
      });
      const joint = positionNodes(n, start.length / 3, constraints, Float64Array.from(start), root, { ...positioningOptions(o, 0), convergence: o.positioningPointsConvergence });
      pointIterations = joint.iterations;
      const refined = refinePositions(n, constraints, joint.positions, root, { iterations: o.refinementIterations, loss: o.positioningLoss, tolerance: o.refinementTolerance });
      refinementIterations = refined.iterations;
      return refined.positions.subarray(0, 3 * n);
    });
  }

  const poses: (CameraPose | undefined)[] = new Array(imageCount).fill(undefined);
  for (const [image, v] of cameraIndex) {
    const rotation = rotations.get(image)!;
    poses[image] = { rotation, translation: translationFromCentre(rotation, centreOf(centres, v)) };
  }
  const rejectedTracks: Record<string, number> = {};
  const points: TriangulatedPoint[] = [];
  timed('triangulation', () => {
    for (const track of tracks) {
      const outcome = triangulateTrack(track, poses, cameras, pixel, o);
      if (typeof outcome === 'string') rejectedTracks[outcome] = (rejectedTracks[outcome] ?? 0) + 1;
      else points.push(outcome);
    }
  });
  const observations = points.reduce((s, p) => s + p.observations.length, 0);
  const sortedResiduals = Array.from(residualsDeg).sort((a, b) => a - b);
  return {
    poses,
    points,
    cameras: [...cameras],
    tracks,
    unregistered: graph.unregistered,
    droppedEdges: graph.droppedEdges,
    stats: {
      stageMs,
      edgesInComponent,
      edgesUsed: graph.edges.length,
      rotationRounds: rounds,
      rotationResidualDeg: { median: sortedResiduals[sortedResiduals.length >> 1] ?? 0, max: sortedResiduals[sortedResiduals.length - 1] ?? 0 },
      positioningIterations: { cameras: cameraStage.iterations, points: pointIterations, refinement: refinementIterations },
      tracks: tracks.length,
      inconsistentTracks: inconsistent,
      rejectedTracks,
      meanReprojectionErrorPx: observations ? points.reduce((s, p) => s + p.meanErrorPx * p.observations.length, 0) / observations : 0,
      calibration: calibration?.stats,
    },
  };
}

/** LUD rounds for the random start of the cameras; the points stage starts from them and from rays' closest points, so it needs none. */
function positioningOptions(o: MappingOptions, ludIterations: number) {
  return { iterations: o.positioningIterations, loss: o.positioningLoss, ludIterations, convergence: 1e-6 };
}

/**
 * The tracks that position the points stage: the longest first (ties by their first observation),
 * up to positioningMaxTracks, and beyond that any that still sees an image with fewer than
 * positioningMinTracksPerImage. Each round's cost grows with the sum of squared track lengths
 * (the Schur complement), and a thousand well-spread tracks fix 40 cameras as well as 2,000 do.
 */
function positioningTracks(tracks: readonly Observation[][], cameraCount: number, cameraIndex: Map<number, number>, o: MappingOptions): Observation[][] {
  const order = tracks.map((_, k) => k).sort((x, y) => tracks[y].length - tracks[x].length || tracks[x][0].image - tracks[y][0].image || tracks[x][0].keypoint - tracks[y][0].keypoint);
  const coverage = new Array<number>(cameraCount).fill(0);
  const chosen: Observation[][] = [];
  for (const k of order) {
    const cameras = tracks[k].map((ob) => cameraIndex.get(ob.image)!);
    if (chosen.length >= o.positioningMaxTracks && cameras.every((v) => coverage[v] >= o.positioningMinTracksPerImage)) continue;
    chosen.push(tracks[k]);
    for (const v of cameras) coverage[v]++;
  }
  return chosen;
}

function rotationProblem(graph: ViewGraph): { nodes: number[]; edges: RotationEdge[] } {
  const index = new Map(graph.images.map((image, v) => [image, v]));
  return {
    nodes: graph.images,
    edges: graph.edges.map((e) => ({ a: index.get(e.first)!, b: index.get(e.second)!, rotation: e.rotation, weight: e.inlierCount })),
  };
}

/** The camera with the most inliers over its pairs: the gauge's origin. */
function mostConnected(graph: ViewGraph, index: Map<number, number>): number {
  const weight = new Array<number>(graph.images.length).fill(0);
  for (const e of graph.edges) {
    weight[index.get(e.first)!] += e.inlierCount;
    weight[index.get(e.second)!] += e.inlierCount;
  }
  return weight.indexOf(Math.max(...weight));
}

function centreOf(positions: Float64Array, v: number): Vec3 {
  return [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]];
}

/** The least-squares closest point to a set of rays (sum of squared distances), or a point a unit along the first ray where they are parallel. */
function closestPointToRays(rays: readonly { centre: Vec3; direction: Vec3 }[]): Vec3 {
  const a = new Float64Array(9);
  const b = [0, 0, 0];
  for (const { centre, direction: d } of rays) {
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) {
        const projector = (r === c ? 1 : 0) - d[r] * d[c];
        a[3 * r + c] += projector;
        b[r] += projector * centre[c];
      }
    }
  }
  const det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
  const [c0, d0] = [rays[0].centre, rays[0].direction];
  if (Math.abs(det) < 1e-9) return [c0[0] + d0[0], c0[1] + d0[1], c0[2] + d0[2]];
  const solve = (column: number) => {
    const m = Float64Array.from(a);
    for (let r = 0; r < 3; r++) m[3 * r + column] = b[r];
    return (m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])) / det;
  };
  const point: Vec3 = [solve(0), solve(1), solve(2)];
  // Behind the first camera (rays that diverge): start in front instead.
  if ((point[0] - c0[0]) * d0[0] + (point[1] - c0[1]) * d0[1] + (point[2] - c0[2]) * d0[2] <= 0) return [c0[0] + d0[0], c0[1] + d0[1], c0[2] + d0[2]];
  return point;
}

function noGraphMessage(input: GlobalMappingInput, graph: ViewGraph, minInliers: number): string {
  const reasons = new Map<string, number>();
  for (const d of graph.droppedEdges) reasons.set(d.reason.replace(/^\d+ inliers/, 'too few inliers'), (reasons.get(d.reason.replace(/^\d+ inliers/, 'too few inliers')) ?? 0) + 1);
  const summary = [...reasons].map(([reason, count]) => `${count} x ${reason}`).join('; ');
  return (
    `global-mapper.ts: no two of the ${input.imageCount} images are joined by a verified pair with >= ${minInliers} inliers and a relative pose ` +
    `(${input.verified.length} pairs verified${summary ? `; left out: ${summary}` : ''}); try images that overlap more (60% or more between neighbours), more texture, or more features`
  );
}
