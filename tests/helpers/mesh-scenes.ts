/** Synthetic scenes for mesh extraction tests: a UV sphere, cameras around it, a NeRF-synthetic folder of them. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invertRigid, lookAt, type PinholeCamera } from '../../shared/scene/camera.js';
import { tempDir } from './datasets.js';
import { encodePng } from './images.js';

/** A UV sphere (positions, triangle indices). */
export function uvSphere(radius: number, rings = 24, segments = 48) {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (let r = 0; r <= rings; r++) {
    const theta = (Math.PI * r) / rings;
    for (let s = 0; s < segments; s++) {
      const phi = (2 * Math.PI * s) / segments;
      positions.push(radius * Math.sin(theta) * Math.cos(phi), radius * Math.cos(theta), radius * Math.sin(theta) * Math.sin(phi));
    }
  }
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s;
      const b = r * segments + ((s + 1) % segments);
      triangles.push(a, a + segments, b, b, a + segments, b + segments);
    }
  }
  return { positions, triangles };
}

export const CAMERA_ANGLE_X = 0.7;

/** Cameras on a Fibonacci sphere of radius 3 looking at the origin (the render-views.mjs layout). */
export function sphereCameras(count: number, size: number): PinholeCamera[] {
  const f = (0.5 * size) / Math.tan(CAMERA_ANGLE_X / 2);
  return Array.from({ length: count }, (_, i) => {
    const y = 1 - (2 * (i + 0.5)) / count;
    const r = Math.sqrt(1 - y * y);
    const phi = i * 2.399963229728653;
    const eye = [3 * r * Math.cos(phi), 3 * y, 3 * r * Math.sin(phi)];
    return { width: size, height: size, fx: f, fy: f, cx: size / 2, cy: size / 2, worldToCamera: lookAt(eye, [0, 0, 0], Math.abs(y) > 0.95 ? [1, 0, 0] : [0, 1, 0]) };
  });
}

/** A NeRF-synthetic folder for `cameras` (grey PNGs: extraction reads the cameras only). */
export async function writeNerfSyntheticCameras(cameras: readonly PinholeCamera[]): Promise<string> {
  const root = await tempDir('mesh-data');
  for (const split of ['train', 'test'] as const) {
    await mkdir(path.join(root, split), { recursive: true });
    const frames = [];
    const views = split === 'train' ? cameras : cameras.slice(0, 1);
    for (const [i, camera] of views.entries()) {
      const c2w = invertRigid(camera.worldToCamera); // OpenCV axes: flip y and z for OpenGL
      const rows = [0, 1, 2].map((r) => [c2w[4 * r], -c2w[4 * r + 1], -c2w[4 * r + 2], c2w[4 * r + 3]]);
      frames.push({ file_path: `./${split}/r_${i}`, transform_matrix: [...rows, [0, 0, 0, 1]] });
      const { width, height } = camera;
      await writeFile(path.join(root, split, `r_${i}.png`), encodePng({ width, height, colorType: 2, depth: 8, samples: new Array(width * height * 3).fill(128) }));
    }
    await writeFile(path.join(root, `transforms_${split}.json`), JSON.stringify({ camera_angle_x: CAMERA_ANGLE_X, frames }));
  }
  return root;
}
