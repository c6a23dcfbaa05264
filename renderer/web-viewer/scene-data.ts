/**
 * The scene the exported page carries (shared/scene/web-scene.ts): read from the global that
 * scene.js set, checked, and decoded to the 32-byte layout Babylon's GaussianSplattingMesh reads.
 */
import { CameraPathSchema, type CameraPath } from '../../shared/scene/camera-path.js';
import { encodeSplatSet } from '../../shared/scene/splat-layout.js';
import { readSpz } from '../../shared/scene/spz-read.js';
import { WEB_SCENE_FORMAT, WEB_SCENE_GLOBAL, WEB_SCENE_VERSION, WEB_VIEWER_FILES, type WebScene } from '../../shared/scene/web-scene.js';
import type { PinholeCamera } from '../../shared/scene/camera.js';

export interface LoadedScene {
  name: string;
  /** 32-byte records (shared/scene/splat-layout.ts). */
  splats: ArrayBuffer;
  splatCount: number;
  cameraPaths: CameraPath[];
  cameras: PinholeCamera[];
}

/** The payload scene.js assigned, or an error naming what is wrong with it. */
export function readScenePayload(global: Record<string, unknown>): WebScene {
  const scene = global[WEB_SCENE_GLOBAL] as Partial<WebScene> | undefined;
  if (!scene || typeof scene !== 'object') throw new Error(`${WEB_VIEWER_FILES.scene} did not load (it must lie beside ${WEB_VIEWER_FILES.page}) or set no scene`);
  if (scene.format !== WEB_SCENE_FORMAT) throw new Error(`${WEB_VIEWER_FILES.scene}: not an Argonaut web scene (format ${JSON.stringify(scene.format ?? null)})`);
  if (scene.version !== WEB_SCENE_VERSION) throw new Error(`${WEB_VIEWER_FILES.scene}: scene version ${scene.version} is not the version ${WEB_SCENE_VERSION} this viewer reads`);
  if (typeof scene.spzBase64 !== 'string') throw new Error(`${WEB_VIEWER_FILES.scene}: spzBase64 is missing`);
  return scene as WebScene;
}

function base64Bytes(base64: string): Uint8Array {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** Decodes the SPZ and keeps the camera paths that pass the schema (a bad one is reported, not fatal). */
export function decodeScene(scene: WebScene, warn: (message: string) => void): LoadedScene {
  const splats = readSpz(base64Bytes(scene.spzBase64), `${WEB_VIEWER_FILES.scene} (spzBase64)`);
  const cameraPaths: CameraPath[] = [];
  for (const [index, raw] of (scene.cameraPaths ?? []).entries()) {
    const parsed = CameraPathSchema.safeParse(raw);
    if (parsed.success) cameraPaths.push(parsed.data);
    else warn(`${WEB_VIEWER_FILES.scene}: camera path ${index} skipped: ${parsed.error.issues[0]?.message}`);
  }
  return { name: scene.name || 'Scene', splats: encodeSplatSet(splats), splatCount: splats.count, cameraPaths, cameras: scene.cameras ?? [] };
}
