/**
 * A synthetic scene where camera refinement is well posed (issue 14 item 2), for the training
 * test and bench/camera-refine.ts. The sample scene (a small torus knot seen from 3.2 units at
 * 64x48) cannot resolve a tenth of its perturbation: 0.15 degrees there is 0.1 px, and a 5% focal
 * trades against the size of an object with little depth. Here:
 * - textured surfaces with depth: a ground plane (3 x 3 units), a sphere and two boxes, covered by
 *   small opaque splats coloured by a 3D checker and stripes (features a few pixels wide);
 * - cameras at varied distances (2.2 to 3.8 units from their targets), heights and targets, so a
 *   focal change is not one dolly of the whole rig;
 * - two physical cameras (views alternate between a focal of 0.85 and 0.75 of the width): two
 *   intrinsics groups, perturbed by +5% and -5%;
 * - the ground truth is rendered by our own forward pass (renderSplatViews), so the exact cameras
 *   can reach it.
 */
import { lookAt, type PinholeCamera } from '../../shared/scene/camera.js';
import { emptySplats, SH_C0, type SplatSet } from '../../shared/scene/splats.js';
import { Random } from '../../shared/random.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import { sceneScaleOf, type TrainingData, type TrainingView } from '../../main/engine/train/data.js';
import { renderSplatViews } from '../../main/engine/train/sample-scene.js';

export interface RefineSceneOptions {
  width?: number;
  height?: number;
  views?: number;
  /** Ground-truth splats (about: split over the surfaces by area). */
  splats?: number;
  /** Every `testEvery`-th view is held out. */
  testEvery?: number;
  /**
   * SfM-like points to start from (0: none, random init in the box): surface samples (not the
   * splats' centres) with their texture colour, each moved by `pointJitter` x the scene scale
   * along a random direction, as triangulation from the perturbed cameras would misplace them.
   */
  points?: number;
  pointJitter?: number;
}

type V3 = [number, number, number];

/** The procedural texture: a 3D checker of 0.2 units, stripes across it, in six colours. */
function textureAt(p: V3): V3 {
  const cell = Math.floor(p[0] / 0.2) + Math.floor(p[1] / 0.2) + Math.floor(p[2] / 0.2);
  const stripe = Math.sin((p[0] * 7 + p[1] * 11 + p[2] * 5) * 2.3) > 0.4 ? 1 : 0;
  const hue = (((cell % 6) + 6) % 6) / 6;
  const rgb = [0, 1, 2].map((k) => 0.5 + 0.42 * Math.cos(2 * Math.PI * (hue + k / 3)));
  return rgb.map((c) => (stripe ? 0.15 + 0.2 * c : c)) as V3;
}

/** Surface samples: [point, normal] uniform by area on the plane, the sphere and the two boxes. */
function surfacePoint(random: Random): V3 {
  const u = random.next();
  const a = random.next();
  const b = random.next();
  if (u < 0.5) return [-1.5 + 3 * a, -0.6, -1.5 + 3 * b]; // ground plane
  if (u < 0.75) {
    // sphere of radius 0.5 about (0, -0.1, 0)
    const z = 2 * a - 1;
    const r = Math.sqrt(1 - z * z);
    const phi = 2 * Math.PI * b;
    return [0.5 * r * Math.cos(phi), -0.1 + 0.5 * z, 0.5 * r * Math.sin(phi)];
  }
  // two boxes of side 0.4 standing on the plane
  const [cx, cz] = u < 0.875 ? [0.95, -0.55] : [-0.7, 0.85];
  const face = Math.floor(random.next() * 5); // 4 sides and the top
  const s = 0.2;
  const x = (2 * a - 1) * s;
  const y = -0.6 + 0.4 * b;
  if (face === 4) return [cx + x, -0.2, cz + (2 * b - 1) * s];
  if (face === 0) return [cx + s, y, cz + x];
  if (face === 1) return [cx - s, y, cz + x];
  if (face === 2) return [cx + x, y, cz + s];
  return [cx + x, y, cz - s];
}

/** The ground truth: small, nearly opaque, isotropic splats on the surfaces. */
export function refineSceneSplats(count: number, seed = 5): SplatSet {
  const random = new Random(seed);
  const s = emptySplats(count, 0);
  for (let i = 0; i < count; i++) {
    const p = surfacePoint(random);
    s.means.set(p, 3 * i);
    const scale = Math.log(0.022 + 0.01 * random.next());
    s.logScales.set([scale, scale, scale], 3 * i);
    s.quats.set([1, 0, 0, 0], 4 * i);
    s.opacityLogits[i] = 3;
    const rgb = textureAt(p);
    for (let c = 0; c < 3; c++) s.sh[3 * i + c] = (rgb[c] - 0.5) / SH_C0;
  }
  return s;
}

/** Cameras around the scene at varied distances, heights and targets; even views one focal, odd the other. */
export function refineSceneCameras(count: number, width: number, height: number, seed = 9): PinholeCamera[] {
  const random = new Random(seed);
  const golden = Math.PI * (3 - Math.sqrt(5));
  return Array.from({ length: count }, (_, i) => {
    const distance = 2.2 + 1.6 * random.next();
    const elevation = ((15 + 35 * random.next()) * Math.PI) / 180;
    const target: V3 = [(random.next() - 0.5) * 0.6, -0.3, (random.next() - 0.5) * 0.6];
    const azimuth = golden * i;
    const eye = [target[0] + distance * Math.cos(elevation) * Math.cos(azimuth), target[1] + distance * Math.sin(elevation), target[2] + distance * Math.cos(elevation) * Math.sin(azimuth)];
    const f = (i % 2 === 0 ? 0.85 : 0.75) * width;
    return { width, height, fx: f, fy: f, cx: width / 2, cy: height / 2, worldToCamera: lookAt(eye, target) };
  });
}

export const REFINE_SCENE = { width: 192, height: 144, views: 24, splats: 12000, testEvery: 8, points: 0, pointJitter: 0.005 } as const;

/** The scene rendered from its cameras on a black background; the splats it was rendered from. */
export async function refineScene(ctx: GpuContext, options: RefineSceneOptions = {}): Promise<TrainingData & { truth: SplatSet }> {
  const o = { ...REFINE_SCENE, ...options };
  const truth = refineSceneSplats(o.splats);
  const cameras = refineSceneCameras(o.views, o.width, o.height);
  const views: TrainingView[] = cameras.map((camera, i) => ({ name: `view_${String(i).padStart(3, '0')}`, camera, split: i % o.testEvery === 0 ? 'test' : 'train' }));
  const background: [number, number, number] = [0, 0, 0];
  const images = await renderSplatViews(ctx, truth, cameras, background);
  const sceneScale = sceneScaleOf(cameras);
  const points = o.points > 0 ? scenePoints(o.points, o.pointJitter * sceneScale) : undefined;
  return { name: 'camera-refinement scene', views, background, sceneScale, initBox: [-1.6, -0.7, -1.6, 1.6, 0.5, 1.6], ...(points ? { points } : {}), truth, loadImage: async (i) => images[i] };
}

/** SfM-like points (see RefineSceneOptions.points). */
function scenePoints(count: number, jitter: number): { positions: Float32Array; colors: Uint8Array } {
  const random = new Random(13);
  const positions = new Float32Array(3 * count);
  const colors = new Uint8Array(3 * count);
  for (let i = 0; i < count; i++) {
    const p = surfacePoint(random);
    const rgb = textureAt(p);
    const d = [random.next() - 0.5, random.next() - 0.5, random.next() - 0.5];
    const l = Math.hypot(d[0], d[1], d[2]) || 1;
    for (let k = 0; k < 3; k++) {
      positions[3 * i + k] = p[k] + (jitter * d[k]) / l;
      colors[3 * i + k] = Math.round(255 * rgb[k]);
    }
  }
  return { positions, colors };
}
