import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { invertRigid } from '../../../shared/scene/camera.js';

export const TILE_SIZE = 16;
export const CAMERA_UNIFORM_BYTES = 144;

export interface RenderSettings {
  background: readonly [number, number, number];
  /** Mip-Splatting's 2D filter with opacity compensation instead of the classic 0.3 dilation. */
  antialiased: boolean;
  /** Active SH degree (<= the stored degree). */
  shDegree: number;
  near?: number;
}

export function tileCounts(camera: Pick<PinholeCamera, 'width' | 'height'>): { x: number; y: number; total: number } {
  const x = Math.ceil(camera.width / TILE_SIZE);
  const y = Math.ceil(camera.height / TILE_SIZE);
  return { x, y, total: x * y };
}

/** Packs the `Camera` struct of kernels/splat-common.wgsl. */
export function packCameraUniform(camera: PinholeCamera, settings: RenderSettings, storedShCoeffs: number, countIndex: number, shPlane: number): ArrayBuffer {
  const m = camera.worldToCamera;
  if (m.length !== 16 || m.some((v) => !Number.isFinite(v))) throw new Error('camera: worldToCamera must be 16 finite numbers');
  const c2w = invertRigid(m);
  const tiles = tileCounts(camera);
  const buffer = new ArrayBuffer(CAMERA_UNIFORM_BYTES);
  const f = new Float32Array(buffer);
  const u = new Uint32Array(buffer);
  f.set([m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11]], 0);
  f.set([c2w[3], c2w[7], c2w[11], 1], 12);
  f.set([settings.background[0], settings.background[1], settings.background[2], 1], 16);
  f.set([camera.fx, camera.fy, camera.cx, camera.cy], 20);
  u.set([camera.width, camera.height, tiles.x, tiles.y], 24);
  f[28] = settings.near ?? 0.01;
  f[29] = 0.3;
  u[30] = settings.shDegree;
  u[31] = storedShCoeffs;
  u[32] = settings.antialiased ? 1 : 0;
  u[33] = countIndex;
  u[34] = shPlane;
  return buffer;
}
