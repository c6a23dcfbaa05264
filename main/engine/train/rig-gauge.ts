/**
 * Camera refinement's gauge (see camera-refine.ts's header): moving, turning or scaling every
 * camera and every splat together changes no image, so after each update the small similarity of
 * the whole rig that best fits the pose corrections is removed from them.
 *
 * The least-squares system is linearised about the given cameras (the corrections are degrees and
 * per cent), not about the corrected ones: its matrix depends only on which views have been refined
 * so far, never on the corrections. So the 6x7 columns of every view and the 7x7 normal matrix are
 * built once per set of refined views (which grows during the first epoch after refinement starts,
 * then stays) and reused: exactly the numbers a rebuild would give, with only A^T b and the 7x7
 * solve left per update.
 *
 * Tied to the focal (camera-refine.ts's `focalGauge`): a longer focal with the camera moved back
 * by the same fraction of its distance to the scene keeps the image's size (a dolly zoom), so the
 * removal then leaves each view the dolly its own focal change implies, and the rig's scale follows
 * the focal instead of staying the given one's.
 */
import { solveLinearSystem } from '../../../shared/math/linear-solve.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { AdamBlock } from './host-adam.js';

/** What the gauge reads and corrects of a view's pose block: (omega, tau), and whether it has been stepped. */
export type PoseBlock = Pick<AdamBlock, 'value' | 'steps'>;

interface GaugeSystem {
  /** The views it was built for (those refined so far), in order. */
  refined: number[];
  /** Per refined view, the 7 columns (each 6 rows) of the map from (W, T, s) to its (omega, tau). */
  columns: number[][][];
  /** A^T W A, weighted as `rowWeight`. */
  normal: number[][];
}

/**
 * The point the views look at: least squares nearest to every optical axis, pulled towards the
 * camera centroid by a small ridge so that near-parallel axes (a forward-facing capture) give a
 * finite answer (the centroid, where a dolly degenerates to the plain removal) rather than noise.
 */
function sceneCentre(frames: readonly { R: number[]; c: number[] }[], centroid: readonly number[]): number[] {
  const ridge = 1e-3 * frames.length;
  const A = [0, 1, 2].map((r) => [0, 1, 2].map((c) => (r === c ? ridge : 0)));
  const b = centroid.map((x) => ridge * x);
  for (const { R, c } of frames) {
    const d = [R[6], R[7], R[8]]; // the optical axis (the camera's z row) in world axes
    for (let r = 0; r < 3; r++) {
      for (let k = 0; k < 3; k++) {
        const P = (r === k ? 1 : 0) - d[r] * d[k];
        A[r][k] += P;
        b[r] += P * c[k];
      }
    }
  }
  return solveLinearSystem(A, b) ?? [...centroid];
}

export class RigGauge {
  private system: GaugeSystem | undefined;

  /** Every view's rotation (world to camera, row-major) and centre. */
  private readonly frames: { R: number[]; c: number[] }[];
  /** Every view's tau per unit of log focal (see `dolly`). */
  private readonly dollies: number[][];

  constructor(
    cameras: readonly PinholeCamera[],
    private readonly sceneScale: number,
  ) {
    this.frames = cameras.map((camera) => {
      const m = camera.worldToCamera;
      const R = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
      const c = [0, 1, 2].map((k) => -(R[k] * m[3] + R[3 + k] * m[7] + R[6 + k] * m[11]));
      return { R, c };
    });
    const centroid = [0, 1, 2].map((k) => this.frames.reduce((s, f) => s + f.c[k], 0) / Math.max(1, this.frames.length));
    const target = sceneCentre(this.frames, centroid);
    this.dollies = this.frames.map(({ R, c }) => {
      const q = [c[0] - target[0], c[1] - target[1], c[2] - target[2]];
      return [0, 1, 2].map((r) => -(R[3 * r] * q[0] + R[3 * r + 1] * q[1] + R[3 * r + 2] * q[2]));
    });
  }

  /**
   * The pose correction (omega, tau) that keeps view `view`'s image of the scene the same size
   * when its focal changes by `logFocal`: the camera moves away from the scene centre by
   * `logFocal` x its distance (a dolly zoom: only the perspective changes, to first order).
   */
  dolly(view: number, logFocal: number): number[] {
    const d = this.dollies[view];
    return [0, 0, 0, logFocal * d[0], logFocal * d[1], logFocal * d[2]];
  }

  /**
   * Removes from the pose corrections (of the views refined so far) the small similarity of the
   * whole rig that fits them best: a world rotation W, translation T and scale s about the
   * centroid m of the camera centres moves camera i's correction by omega = -R_i W and
   * tau = -R_i (W x (c_i - m) + s (c_i - m) + T) (first order). Least squares over (W, T, s),
   * rotations weighted by the scene scale, then subtracted. With `logFocal` (each view's log-focal
   * change), what is fitted and removed is the corrections less each view's `dolly`.
   */
  remove(poses: PoseBlock[], logFocal?: readonly number[]): void {
    const refined = poses.flatMap((p, i) => (p.steps > 0 ? [i] : []));
    if (refined.length < 3) return; // two cameras pin no scale; one moves freely
    const { columns, normal } = this.systemFor(refined);
    // the dolly each view's focal change implies (none without logFocal: then exactly the plain removal)
    const dolly = (k: number, row: number) => (logFocal && row >= 3 ? logFocal[refined[k]] * this.dollies[refined[k]][row - 3] : 0);
    const Atb = new Array<number>(7).fill(0);
    refined.forEach((view, k) => {
      const y = poses[view].value;
      const cols = columns[k];
      for (let row = 0; row < 6; row++) {
        const w = this.rowWeight(row);
        const z = y[row] - dolly(k, row);
        for (let a = 0; a < 7; a++) Atb[a] += w * cols[a][row] * z;
      }
    });
    const x = solveLinearSystem(normal, Atb);
    if (!x) return;
    refined.forEach((view, k) => {
      const cols = columns[k];
      for (let row = 0; row < 6; row++) {
        let g = 0;
        for (let a = 0; a < 7; a++) g += cols[a][row] * x[a];
        poses[view].value[row] -= g;
      }
    });
  }

  /** Rotation rows (radians) weigh as scene-scale translations. */
  private rowWeight(row: number): number {
    return row < 3 ? this.sceneScale * this.sceneScale : 1;
  }

  private systemFor(refined: number[]): GaugeSystem {
    const cached = this.system;
    if (cached && cached.refined.length === refined.length && cached.refined.every((view, k) => view === refined[k])) return cached;
    const frames = refined.map((i) => this.frames[i]);
    const centroid = [0, 1, 2].map((k) => frames.reduce((s, f) => s + f.c[k], 0) / frames.length);
    const columns = frames.map(({ R, c }) => {
      const p = [c[0] - centroid[0], c[1] - centroid[1], c[2] - centroid[2]];
      const rotate = (v: readonly number[]) => [0, 1, 2].map((r) => -(R[3 * r] * v[0] + R[3 * r + 1] * v[1] + R[3 * r + 2] * v[2]));
      const cols: number[][] = [];
      for (let j = 0; j < 3; j++) {
        const e = [0, 0, 0];
        e[j] = 1;
        const wxp = [e[1] * p[2] - e[2] * p[1], e[2] * p[0] - e[0] * p[2], e[0] * p[1] - e[1] * p[0]];
        cols.push([...rotate(e), ...rotate(wxp)]);
      }
      for (let j = 0; j < 3; j++) {
        const e = [0, 0, 0];
        e[j] = 1;
        cols.push([0, 0, 0, ...rotate(e)]);
      }
      cols.push([0, 0, 0, ...rotate(p)]);
      return cols;
    });
    const normal = Array.from({ length: 7 }, () => new Array<number>(7).fill(0));
    for (const cols of columns) {
      for (let row = 0; row < 6; row++) {
        const w = this.rowWeight(row);
        for (let a = 0; a < 7; a++) for (let b = 0; b < 7; b++) normal[a][b] += w * cols[a][row] * cols[b][row];
      }
    }
    this.system = { refined: [...refined], columns, normal };
    return this.system;
  }
}

/** One removal without a cache (tests, one-off callers). */
export function removeRigGauge(cameras: readonly PinholeCamera[], poses: PoseBlock[], sceneScale: number): void {
  new RigGauge(cameras, sceneScale).remove(poses);
}
