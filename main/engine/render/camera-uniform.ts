import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { invertRigid } from '../../../shared/scene/camera.js';
import { UniformStruct } from '../gpu/uniforms.js';

export const TILE_SIZE = 16;

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

/** The `Camera` struct of kernels/splat-common.wgsl (its bytes: `.size`). */
export const cameraStruct = (): UniformStruct => UniformStruct.of('splat-common', 'Camera');

/** Packs the `Camera` struct of kernels/splat-common.wgsl. */
export function packCameraUniform(camera: PinholeCamera, settings: RenderSettings, storedShCoeffs: number, countIndex: number, shPlane: number): ArrayBuffer {
  const m = camera.worldToCamera;
  if (m.length !== 16 || m.some((v) => !Number.isFinite(v))) throw new Error('camera: worldToCamera must be 16 finite numbers');
  const c2w = invertRigid(m);
  const tiles = tileCounts(camera);
  return cameraStruct().pack({
    r0: m.slice(0, 4),
    r1: m.slice(4, 8),
    r2: m.slice(8, 12),
    position: [c2w[3], c2w[7], c2w[11], 1],
    background: [settings.background[0], settings.background[1], settings.background[2], 1],
    focal: [camera.fx, camera.fy],
    principal: [camera.cx, camera.cy],
    size: [camera.width, camera.height],
    tiles: [tiles.x, tiles.y],
    near: settings.near ?? 0.01,
    eps2d: 0.3,
    sh_degree: settings.shDegree,
    sh_coeffs: storedShCoeffs,
    antialiased: settings.antialiased,
    count_index: countIndex,
    sh_plane: shPlane,
  });
}
