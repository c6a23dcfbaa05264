/**
 * The built-in sample scene for the viewer: a colourful (2, 3) torus knot made of Gaussian splats,
 * a ring of pinhole cameras looking at it and a sparse "SfM" point cloud sampled from its surface.
 * Generated procedurally and deterministically (seeded): development and tests need no network and
 * no files. Its geometry follows the engine's own sample scene (main/engine/train/sample-scene.ts:
 * the same knot centre line and tube, cameras 3.2 from the origin, a y-up world) so a live training
 * run on the sample lands where this one is drawn; this one adds surface-aligned splats and shading.
 */
import { seededRandom } from '../../../shared/random.js';
import { lookAt, type PinholeCamera } from '../../../shared/scene/camera.js';
import type { Vec3 } from './opencv-frame.js';
import { createSplatBuffer, writeSplat } from './splat-layout.js';

export interface DemoScene {
  /** 32-byte ".splat" records (splat-layout.ts). */
  splats: ArrayBuffer;
  count: number;
  cameras: PinholeCamera[];
  points: { positions: Float32Array; colors: Uint8Array; count: number };
}

export interface DemoSceneOptions {
  splatCount?: number;
  cameraCount?: number;
  pointCount?: number;
  seed?: number;
}

const TUBE_RADIUS = 0.1;
const WORLD_UP: Vec3 = [0, 1, 0];

/** Centre line of the knot, as the engine's sample scene has it: y is up, the knot lies around it. */
function knot(phi: number): Vec3 {
  const r = 0.6 + 0.25 * Math.cos(3 * phi);
  return [r * Math.cos(2 * phi), 0.25 * Math.sin(3 * phi), r * Math.sin(2 * phi)];
}

function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function normalize(a: Vec3): Vec3 {
  const n = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / n, a[1] / n, a[2] / n];
}

/** Tangent, normal and binormal of the knot at phi (finite differences; smooth enough here). */
function frame(phi: number): { t: Vec3; n: Vec3; b: Vec3 } {
  const h = 1e-3;
  const t = normalize(sub(knot(phi + h), knot(phi - h)));
  const b = normalize(cross(t, WORLD_UP));
  const n = cross(b, t);
  return { t, n, b };
}

/** Quaternion (w, x, y, z) of the rotation whose columns are a, b, c (a right-handed basis). */
export function quaternionFromBasis(a: Vec3, b: Vec3, c: Vec3): [number, number, number, number] {
  const m00 = a[0], m10 = a[1], m20 = a[2];
  const m01 = b[0], m11 = b[1], m21 = b[2];
  const m02 = c[0], m12 = c[1], m22 = c[2];
  const trace = m00 + m11 + m22;
  if (trace > 0) {
    const s = Math.sqrt(trace + 1) * 2;
    return [0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s];
  }
  if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    return [(m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s];
  }
  if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    return [(m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s];
  }
  const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
  return [(m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s];
}

/** HSV (all 0..1) to RGB 0..255. */
export function hsvToRgb(h: number, s: number, v: number): [number, number, number] {
  const i = Math.floor(h * 6);
  const f = h * 6 - i;
  const p = v * (1 - s);
  const q = v * (1 - f * s);
  const t = v * (1 - (1 - f) * s);
  const [r, g, b] = [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][((i % 6) + 6) % 6];
  return [r * 255, g * 255, b * 255];
}

function surfacePoint(phi: number, theta: number, radius: number): { position: Vec3; normal: Vec3; frame: ReturnType<typeof frame> } {
  const c = knot(phi);
  const f = frame(phi);
  const normal: Vec3 = [
    f.n[0] * Math.cos(theta) + f.b[0] * Math.sin(theta),
    f.n[1] * Math.cos(theta) + f.b[1] * Math.sin(theta),
    f.n[2] * Math.cos(theta) + f.b[2] * Math.sin(theta),
  ];
  return { position: [c[0] + normal[0] * radius, c[1] + normal[1] * radius, c[2] + normal[2] * radius], normal, frame: f };
}

/** Colour of the surface: hue along the knot, lit from above (world +y) with a soft ambient term. */
function surfaceColour(phi: number, normal: Vec3): [number, number, number] {
  const light = normalize([0.4, 1, 0.3]);
  const lambert = Math.max(0, normal[0] * light[0] + normal[1] * light[1] + normal[2] * light[2]);
  return hsvToRgb(phi / (2 * Math.PI), 0.75, 0.35 + 0.65 * lambert);
}

export function generateDemoScene(options: DemoSceneOptions = {}): DemoScene {
  const count = options.splatCount ?? 24000;
  const random = seededRandom(options.seed ?? 1);

  const views = createSplatBuffer(count);
  for (let i = 0; i < count; i++) {
    const phi = random() * 2 * Math.PI;
    const theta = random() * 2 * Math.PI;
    const { position, normal, frame: f } = surfacePoint(phi, theta, TUBE_RADIUS * (0.92 + 0.08 * random()));
    // Flat splats lying on the tube's surface: long along the knot, thin along the normal.
    const tangentSide = cross(normal, f.t);
    const rotation = quaternionFromBasis(f.t, tangentSide, normal);
    writeSplat(views, i, {
      position,
      scale: [0.012 + 0.008 * random(), 0.008 + 0.005 * random(), 0.002],
      rgba: [...surfaceColour(phi, normal), 235],
      quaternion: rotation,
    });
  }

  const cameraCount = options.cameraCount ?? 12;
  const cameras: PinholeCamera[] = [];
  for (let k = 0; k < cameraCount; k++) {
    // A ring 3.2 from the origin, 35 degrees above the knot, like the engine's orbit.
    const azimuth = (k / cameraCount) * 2 * Math.PI;
    const elevation = (35 * Math.PI) / 180;
    const eye: Vec3 = [3.2 * Math.cos(elevation) * Math.cos(azimuth), 3.2 * Math.sin(elevation), 3.2 * Math.cos(elevation) * Math.sin(azimuth)];
    cameras.push({ width: 640, height: 480, fx: 576, fy: 576, cx: 320, cy: 240, worldToCamera: lookAt(eye, [0, 0, 0], WORLD_UP) });
  }

  const pointCount = options.pointCount ?? 3000;
  const positions = new Float32Array(pointCount * 3);
  const colors = new Uint8Array(pointCount * 4);
  for (let i = 0; i < pointCount; i++) {
    const phi = random() * 2 * Math.PI;
    const theta = random() * 2 * Math.PI;
    // Like real SfM points: on the surface give or take reconstruction noise, a few well off it.
    const noise = random() < 0.9 ? 0.02 * (random() - 0.5) : 0.15 * random();
    const { position, normal } = surfacePoint(phi, theta, TUBE_RADIUS + noise);
    positions.set(position, i * 3);
    colors.set([...surfaceColour(phi, normal).map(Math.round), 255], i * 4);
  }

  return { splats: views.buffer, count, cameras, points: { positions, colors, count: pointCount } };
}
