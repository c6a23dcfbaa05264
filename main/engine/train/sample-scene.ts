import { lookAt, type PinholeCamera } from '../../../shared/scene/camera.js';
import { emptySplats, SH_C0, type SplatSet } from '../../../shared/scene/splats.js';
import { readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { GpuSplats } from '../render/gpu-splats.js';
import { Rasterizer } from '../render/rasterizer.js';
import { sceneScaleOf, type TrainingData, type TrainingView } from './data.js';
import { Random } from '../../../shared/random.js';

export interface SampleSceneOptions {
  splats?: number;
  views?: number;
  width?: number;
  height?: number;
  seed?: number;
}

/** A colourful (2,3) torus knot of splats: the sample scene's ground truth. */
export function torusKnotSplats(count: number, seed = 7): SplatSet {
  const random = new Random(seed);
  const s = emptySplats(count, 0);
  for (let i = 0; i < count; i++) {
    const t = (i / count) * 2 * Math.PI;
    const r = 0.6 + 0.25 * Math.cos(3 * t);
    const centre = [r * Math.cos(2 * t), 0.25 * Math.sin(3 * t), r * Math.sin(2 * t)];
    // spread around the curve: a tube of radius 0.12
    const a = random.next() * 2 * Math.PI;
    const b = Math.sqrt(random.next()) * 0.12;
    s.means.set([centre[0] + b * Math.cos(a), centre[1] + b * Math.sin(a), centre[2] + (random.next() - 0.5) * 0.12], 3 * i);
    const scale = Math.log(0.02 + 0.03 * random.next());
    s.logScales.set([scale, scale + (random.next() - 0.5), scale], 3 * i);
    s.quats.set([random.next() + 0.5, random.next() - 0.5, random.next() - 0.5, random.next() - 0.5], 4 * i);
    s.opacityLogits[i] = 1 + 2 * random.next();
    // rainbow along the knot
    const hue = t / (2 * Math.PI);
    const rgb = [0, 1, 2].map((k) => 0.5 + 0.45 * Math.cos(2 * Math.PI * (hue + k / 3)));
    for (let c = 0; c < 3; c++) s.sh[3 * i + c] = (rgb[c] - 0.5) / SH_C0;
  }
  return s;
}

/** Cameras on a sphere around the origin (a golden-angle spiral), all looking at it. */
export function orbitCameras(count: number, width: number, height: number, radius = 3.2): PinholeCamera[] {
  const cameras: PinholeCamera[] = [];
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < count; i++) {
    const y = 0.8 - (1.4 * (i + 0.5)) / count; // elevations from above to slightly below
    const ring = Math.sqrt(1 - y * y);
    const eye = [radius * ring * Math.cos(golden * i), radius * y, radius * ring * Math.sin(golden * i)];
    const f = 0.9 * width;
    cameras.push({ width, height, fx: f, fy: f, cx: width / 2, cy: height / 2, worldToCamera: lookAt(eye, [0, 0, 0]) });
  }
  return cameras;
}

/** The sample scene's defaults: what a sample project trains on and shows. */
export const SAMPLE_SCENE = { width: 128, height: 96, views: 40, splats: 3000, seed: 7, testEvery: 8 } as const;

/** The sample scene's cameras and split, without rendering its images (projects.scene, render --view). */
export function sampleViews(options: SampleSceneOptions = {}): TrainingView[] {
  const cameras = orbitCameras(options.views ?? SAMPLE_SCENE.views, options.width ?? SAMPLE_SCENE.width, options.height ?? SAMPLE_SCENE.height);
  return cameras.map((camera, i) => ({ name: `orbit_${String(i).padStart(3, '0')}`, camera, split: i % SAMPLE_SCENE.testEvery === 0 ? 'test' : 'train' }));
}

/**
 * The built-in sample scene: the torus knot rendered by our own forward pass from orbiting
 * views (every 8th a test view), on a black background. No files, no network.
 */
export async function sampleScene(ctx: GpuContext, options: SampleSceneOptions = {}): Promise<TrainingData & { truth: SplatSet }> {
  const width = options.width ?? SAMPLE_SCENE.width;
  const height = options.height ?? SAMPLE_SCENE.height;
  const truth = torusKnotSplats(options.splats ?? SAMPLE_SCENE.splats, options.seed ?? SAMPLE_SCENE.seed);
  const views = sampleViews({ ...options, width, height });
  const background: [number, number, number] = [0, 0, 0];
  const images = await renderSplatViews(ctx, truth, views.map((v) => v.camera), background);
  return {
    name: 'sample (torus knot)',
    views,
    background,
    sceneScale: sceneScaleOf(views.map((v) => v.camera)),
    initBox: [-1.2, -0.6, -1.2, 1.2, 0.6, 1.2],
    truth,
    loadImage: async (i) => images[i],
  };
}

/**
 * Ground-truth images of `splats` from each camera (all of one size) by our own forward pass,
 * RGB in [0,1] over `background`: the sample scene's and the synthetic test scenes' renderer.
 */
export async function renderSplatViews(ctx: GpuContext, splats: SplatSet, cameras: readonly PinholeCamera[], background: [number, number, number]): Promise<Float32Array[]> {
  const { width, height } = cameras[0];
  const rasterizer = await Rasterizer.create(ctx, { passes: 'forward' });
  const gpuSplats = GpuSplats.fromHost(ctx, splats);
  const frame = await rasterizer.createFrame(gpuSplats, width, height);
  const images: Float32Array[] = [];
  for (const camera of cameras) {
    if (camera.width !== width || camera.height !== height) throw new Error('renderSplatViews: every camera must have the same image size');
    const commands = ctx.commands('sample');
    rasterizer.encodeForward(commands, frame, camera, { background, antialiased: false, shDegree: splats.shDegree });
    await commands.submit();
    const rgba = new Float32Array(await readBuffer(ctx.device, frame.image, width * height * 16));
    const rgb = new Float32Array(width * height * 3);
    for (let p = 0; p < width * height; p++) for (let c = 0; c < 3; c++) rgb[3 * p + c] = Math.min(1, Math.max(0, rgba[4 * p + c]));
    images.push(rgb);
  }
  frame.destroy();
  gpuSplats.destroy();
  return images;
}
