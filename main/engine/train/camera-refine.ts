/**
 * Camera refinement (issue 14): per-view pose corrections and per-camera intrinsics corrections
 * (shared/scene/camera-correction.ts) learned from the photometric loss. The rasterizer's backward
 * sums each step's dL/d(camera) on the GPU (render/camera-grads.ts); the 12 floats come back
 * asynchronously and Adam runs here on the host in float64 (a handful of numbers per view).
 *
 * Determinism without a sync point per step: the gradient of step t is applied just before step
 * t + LAG is recorded (waiting for it then if it has not arrived), whatever the GPU's timing; each
 * pending gradient keeps the corrections it was computed at. A checkpoint stores the state and
 * the gradients still pending, so a resumed run applies them at the same steps (bit-identical).
 *
 * Schedule (our own, in the spirit of gsplat's pose_opt: Adam on zero-initialised deltas, a small
 * weight decay): frozen for the first `start` steps (early splats are a blur; their camera
 * gradient is noise that would walk the poses away), a linear ramp over `ramp` steps, then an
 * exponential decay to `finalRatio` of the rate at the last step, as the means' rate decays.
 *
 * The gauge: moving, turning or scaling every camera and every splat together changes no image,
 * so the photometric gradient has nothing along those 7 directions, and Adam (which divides by
 * the gradient's own size) random-walks the rig along them at its full rate. Measured on the
 * perturbed sample scene (12 views, 64x48, 1000 steps): held-out PSNR 22.98 dB without the removal
 * below and 28.23 dB with it; with twice the rates and no removal the rig scaled by 12% and
 * held-out PSNR fell to 18.10 dB. After every update the corrections' best-fitting
 * small similarity of the whole rig (rotation, translation, scale about the cameras' centroid) is
 * removed, so the refined rig keeps the frame of the given poses (SfM's, for a capture).
 */
import { ADAM_DEFAULTS } from './adam.js';
import { correctCamera, intrinsicsCorrectionGradient, poseCorrectionGradient, type CameraGradient, type IntrinsicsCorrection, type PoseCorrection } from '../../../shared/scene/camera-correction.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';

export type RefineCamerasMode = 'off' | 'poses' | 'poses+intrinsics';

export interface CameraRefineConfig {
  mode: RefineCamerasMode;
  /** Steps before which the corrections stay zero. */
  start: number;
  /** Steps of linear warm-up of the rates after `start`. */
  ramp: number;
  /** Rate at the last step, as a fraction of the peak. */
  finalRatio: number;
  /** Peak Adam rates: rotation (radians), translation (x scene scale), log focal, principal point (focal units). */
  rates: { rotation: number; translation: number; logFocal: number; principal: number };
  /** Decoupled weight decay per step (x the rate), pulling corrections towards zero like gsplat's pose_opt_reg. */
  weightDecay: number;
}

export const CAMERA_REFINE_DEFAULTS: CameraRefineConfig = {
  mode: 'off',
  start: 500,
  ramp: 500,
  finalRatio: 0.01,
  rates: { rotation: 1e-3, translation: 1e-3, logFocal: 2e-4, principal: 1e-4 },
  weightDecay: 1e-6,
};

/** Steps between a step and the application of its camera gradient (see the header). */
export const CAMERA_LAG = 3;

// the GPU Adam's hyperparameters (adam.ts), one source for both
const { beta1: BETA1, beta2: BETA2, epsilon: EPSILON } = ADAM_DEFAULTS;

/** Adam state of one parameter block (float64, on the host). */
export interface AdamBlock {
  value: number[];
  m: number[];
  v: number[];
  steps: number;
}

export const block = (n: number): AdamBlock => ({ value: new Array<number>(n).fill(0), m: new Array<number>(n).fill(0), v: new Array<number>(n).fill(0), steps: 0 });

export function adamStep(b: AdamBlock, grad: readonly number[], rates: readonly number[], decay: number): void {
  b.steps += 1;
  const c1 = 1 - BETA1 ** b.steps;
  const c2 = 1 - BETA2 ** b.steps;
  for (let i = 0; i < b.value.length; i++) {
    b.m[i] = BETA1 * b.m[i] + (1 - BETA1) * grad[i];
    b.v[i] = BETA2 * b.v[i] + (1 - BETA2) * grad[i] * grad[i];
    b.value[i] -= rates[i] * (b.m[i] / c1 / (Math.sqrt(b.v[i] / c2) + EPSILON) + decay * b.value[i]);
  }
}

/** A gradient read back and waiting for its step (see CAMERA_LAG). */
interface PendingGradient {
  step: number;
  view: number;
  /** The corrections the step rendered with (10 numbers: pose 6, intrinsics 4). */
  at: number[];
  grad?: number[];
}

/** What a checkpoint keeps of the refiner. */
export interface CameraRefineState {
  poses: AdamBlock[];
  intrinsics: AdamBlock[];
  pending: PendingGradient[];
}

/**
 * Whether 'auto' refines the poses of captures (poses estimated by SfM). Off for now: on exact
 * poses refinement is pure noise, and it measured -1.06 dB there (sample scene, 12 views at 64x48,
 * 600 steps, the CI test's rates: 27.55 against 28.61 dB), while what it wins on real SfM poses
 * is not measured yet (the H200 captures of issue 14). Measure, then flip this one line.
 */
export const REFINE_CAPTURE_POSES_BY_DEFAULT = false;

/**
 * The refinement a run does: 'auto' is off where the poses are exact (NeRF-synthetic, the sample
 * scene) and REFINE_CAPTURE_POSES_BY_DEFAULT decides for captures (never 'poses+intrinsics': SfM
 * fits a camera's intrinsics over all its images, and a focal correction trades against depth).
 */
export function resolveRefineCameras(mode: RefineCamerasMode | 'auto', posesEstimated: boolean | undefined): RefineCamerasMode {
  if (mode !== 'auto') return mode;
  return posesEstimated && REFINE_CAPTURE_POSES_BY_DEFAULT ? 'poses' : 'off';
}

/** Views with the same intrinsics and image size share one intrinsics correction (a COLMAP camera). */
export function intrinsicsGroups(cameras: readonly PinholeCamera[]): number[] {
  const keys = new Map<string, number>();
  return cameras.map((c) => {
    const key = [c.width, c.height, c.fx, c.fy, c.cx, c.cy].join(',');
    if (!keys.has(key)) keys.set(key, keys.size);
    return keys.get(key)!;
  });
}

export class CameraRefiner {
  private poses: AdamBlock[];
  private intrinsics: AdamBlock[];
  private readonly group: number[];
  private pending: PendingGradient[] = [];
  private readonly arrivals = new Map<number, Promise<void>>();

  constructor(
    readonly config: CameraRefineConfig,
    private readonly cameras: readonly PinholeCamera[],
    private readonly sceneScale: number,
    private readonly iterations: number,
  ) {
    if (config.mode === 'off') throw new Error('CameraRefiner: refinement is off');
    this.group = intrinsicsGroups(cameras);
    this.poses = cameras.map(() => block(6));
    this.intrinsics = Array.from({ length: Math.max(0, ...this.group) + 1 }, () => block(4));
  }

  get refinesIntrinsics(): boolean {
    return this.config.mode === 'poses+intrinsics';
  }

  /** The rate factor at `step`: 0 before start, the warm-up ramp, then the exponential decay. */
  rateFactor(step: number): number {
    const { start, ramp, finalRatio } = this.config;
    if (step < start) return 0;
    const warm = ramp > 0 ? Math.min(1, (step - start + 1) / ramp) : 1;
    const span = Math.max(1, this.iterations - start);
    return warm * finalRatio ** Math.min(1, (step - start) / span);
  }

  pose(view: number): PoseCorrection {
    const v = this.poses[view].value;
    return { rotation: [v[0], v[1], v[2]], translation: [v[3], v[4], v[5]] };
  }

  intrinsicsOf(view: number): IntrinsicsCorrection {
    const v = this.intrinsics[this.group[view]].value;
    return { logFocal: [v[0], v[1]], principal: [v[2], v[3]] };
  }

  /** View `view`'s camera with its corrections (what training renders and what the project saves). */
  camera(view: number): PinholeCamera {
    return correctCamera(this.cameras[view], this.pose(view), this.intrinsicsOf(view));
  }

  /**
   * Records that step `step` rendered `view` with the current corrections; `gradient` resolves
   * with the 12 floats of its dL/d(camera) (render/camera-grads.ts's layout).
   */
  rendered(step: number, view: number, gradient: Promise<ArrayLike<number>>): void {
    const entry: PendingGradient = { step, view, at: [...this.poses[view].value, ...this.intrinsics[this.group[view]].value] };
    this.pending.push(entry);
    this.arrivals.set(step, gradient.then((g) => void (entry.grad = Array.from(g))));
  }

  /** Before recording step `step`: applies, in step order, every gradient of a step <= step - CAMERA_LAG. */
  async before(step: number): Promise<void> {
    while (this.pending.length && this.pending[0].step <= step - CAMERA_LAG) {
      const entry = this.pending[0];
      if (!entry.grad) await this.arrivals.get(entry.step);
      this.pending.shift();
      this.arrivals.delete(entry.step);
      this.apply(entry);
    }
  }

  /** Waits for every pending gradient to arrive (not applying them: they keep their steps). */
  async settle(): Promise<void> {
    await Promise.all(this.arrivals.values());
  }

  private apply(entry: PendingGradient): void {
    const g = entry.grad!;
    const local: CameraGradient = { omega: [g[0], g[1], g[2]], tau: [g[4], g[5], g[6]], fx: g[3], fy: g[7], cx: g[8], cy: g[9] };
    if (!local.omega.concat(local.tau, [local.fx, local.fy, local.cx, local.cy]).every(Number.isFinite)) return; // a non-finite step is skipped, as Adam skips the splats'
    const at = entry.at;
    const pose: PoseCorrection = { rotation: [at[0], at[1], at[2]], translation: [at[3], at[4], at[5]] };
    const intrinsics: IntrinsicsCorrection = { logFocal: [at[6], at[7]], principal: [at[8], at[9]] };
    const f = this.rateFactor(entry.step);
    if (f === 0) return;
    const r = this.config.rates;
    const dPose = poseCorrectionGradient(local, pose);
    const t = r.translation * this.sceneScale;
    adamStep(this.poses[entry.view], [...dPose.rotation, ...dPose.translation], [r.rotation * f, r.rotation * f, r.rotation * f, t * f, t * f, t * f], this.config.weightDecay);
    if (this.refinesIntrinsics) {
      const d = intrinsicsCorrectionGradient(local, this.cameras[entry.view], intrinsics);
      adamStep(this.intrinsics[this.group[entry.view]], [...d.logFocal, ...d.principal], [r.logFocal * f, r.logFocal * f, r.principal * f, r.principal * f], this.config.weightDecay);
    }
    removeRigGauge(this.cameras, this.poses, this.sceneScale);
  }

  /** The state a checkpoint keeps (after `settle`: every pending gradient has arrived). */
  state(): CameraRefineState {
    if (this.pending.some((p) => !p.grad)) throw new Error('CameraRefiner.state: settle first (a gradient is still in flight)');
    const copy = (b: AdamBlock): AdamBlock => ({ value: [...b.value], m: [...b.m], v: [...b.v], steps: b.steps });
    return { poses: this.poses.map(copy), intrinsics: this.intrinsics.map(copy), pending: this.pending.map((p) => ({ ...p, at: [...p.at], grad: [...p.grad!] })) };
  }

  /** Restores a checkpoint's state; `problem` names what does not fit. */
  restore(state: CameraRefineState, problem: (message: string) => Error): void {
    const fits = (blocks: unknown, count: number, size: number) =>
      Array.isArray(blocks) && blocks.length === count && blocks.every((b: AdamBlock) => [b.value, b.m, b.v].every((a) => Array.isArray(a) && a.length === size && a.every(Number.isFinite)) && Number.isInteger(b.steps));
    if (!fits(state?.poses, this.poses.length, 6)) throw problem(`camera refinement: expected ${this.poses.length} pose corrections`);
    if (!fits(state.intrinsics, this.intrinsics.length, 4)) throw problem(`camera refinement: expected ${this.intrinsics.length} intrinsics corrections`);
    if (!Array.isArray(state.pending) || !state.pending.every((p) => Number.isInteger(p.step) && Number.isInteger(p.view) && p.view >= 0 && p.view < this.poses.length && p.at?.length === 10 && p.grad?.length === 12)) throw problem('camera refinement: corrupt pending gradients');
    this.poses = state.poses.map((b) => ({ value: [...b.value], m: [...b.m], v: [...b.v], steps: b.steps }));
    this.intrinsics = state.intrinsics.map((b) => ({ value: [...b.value], m: [...b.m], v: [...b.v], steps: b.steps }));
    this.pending = state.pending.map((p) => ({ ...p, at: [...p.at], grad: [...p.grad!] }));
    this.arrivals.clear();
  }

  /** Every view's corrections (what the project saves: project/refined-cameras.ts). */
  corrections(): { pose: PoseCorrection; intrinsics: IntrinsicsCorrection }[] {
    return this.cameras.map((_, i) => ({ pose: this.pose(i), intrinsics: this.intrinsicsOf(i) }));
  }

  /** Every view's refined camera. */
  refinedCameras(): PinholeCamera[] {
    return this.cameras.map((_, i) => this.camera(i));
  }
}

/**
 * Removes from the pose corrections (of the views refined so far) the small similarity of the
 * whole rig that fits them best: a world rotation W, translation T and scale s about the centroid
 * m of the camera centres moves camera i's correction by omega = -R_i W and
 * tau = -R_i (W x (c_i - m) + s (c_i - m) + T) (first order; the corrections are degrees and per
 * cent). Least squares over (W, T, s), rotations weighted by the scene scale, then subtracted.
 */
export function removeRigGauge(cameras: readonly PinholeCamera[], poses: AdamBlock[], sceneScale: number): void {
  const refined = poses.flatMap((p, i) => (p.steps > 0 ? [i] : []));
  if (refined.length < 3) return; // two cameras pin no scale; one moves freely
  const frames = refined.map((i) => {
    const m = cameras[i].worldToCamera;
    const R = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
    const c = [0, 1, 2].map((k) => -(R[k] * m[3] + R[3 + k] * m[7] + R[6 + k] * m[11]));
    return { R, c };
  });
  const centroid = [0, 1, 2].map((k) => frames.reduce((s, f) => s + f.c[k], 0) / frames.length);
  // Columns of the 6x7 map from x = (W, T, s) to camera i's (omega, tau).
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
  const weight = (row: number) => (row < 3 ? sceneScale * sceneScale : 1);
  const AtA = Array.from({ length: 7 }, () => new Array<number>(7).fill(0));
  const Atb = new Array<number>(7).fill(0);
  refined.forEach((view, k) => {
    const y = poses[view].value;
    const cols = columns[k];
    for (let row = 0; row < 6; row++) {
      const w = weight(row);
      for (let a = 0; a < 7; a++) {
        Atb[a] += w * cols[a][row] * y[row];
        for (let b = 0; b < 7; b++) AtA[a][b] += w * cols[a][row] * cols[b][row];
      }
    }
  });
  const x = solveSymmetric(AtA, Atb);
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

/** Gaussian elimination with partial pivoting; undefined when singular (a degenerate rig). */
export function solveSymmetric(A: number[][], b: number[]): number[] | undefined {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    if (!(Math.abs(M[p][c]) > 1e-12 * Math.max(1, Math.abs(M[0][0])))) return undefined;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((row, i) => row[n] / M[i][i]);
}
