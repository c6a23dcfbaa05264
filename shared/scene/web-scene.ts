/**
 * The web viewer export's scene payload (issue 17): what the engine writes
 * (main/engine/project/web-export.ts) and the exported viewer reads (renderer/web-viewer/), in one
 * place.
 *
 * A page opened from disk (file://) may not fetch or XHR its neighbours, so the scene reaches the
 * viewer as a classic script, `scene.js`, that assigns this payload to a global before the viewer
 * script runs; the splats travel inside it as base64 of an SPZ version 4 file (4/3 of the SPZ's
 * size). The same folder works from any static host, and `--single-file` inlines both scripts
 * into index.html.
 */
import type { CameraPath } from './camera-path.js';
import type { PinholeCamera } from './camera.js';

export const WEB_SCENE_FORMAT = 'argonaut-web-scene';
export const WEB_SCENE_VERSION = 1;
/** The global `scene.js` assigns (window[WEB_SCENE_GLOBAL]). */
export const WEB_SCENE_GLOBAL = '__ARGONAUT_WEB_SCENE__';

/** The files of an exported folder, and of the built viewer in out/web-viewer/. */
export const WEB_VIEWER_FILES = { page: 'index.html', viewer: 'viewer.js', scene: 'scene.js' } as const;
/** In the built page, the script tags the export keeps (folder) or replaces by the scripts inline (single file). */
export const WEB_SCENE_SCRIPT_TAG = `<script src="${WEB_VIEWER_FILES.scene}"></script>`;
export const WEB_VIEWER_SCRIPT_TAG = `<script src="${WEB_VIEWER_FILES.viewer}"></script>`;

export interface WebScene {
  format: typeof WEB_SCENE_FORMAT;
  version: typeof WEB_SCENE_VERSION;
  /** The project's (or splat file's) name: the page title. */
  name: string;
  splatCount: number;
  /** An SPZ version 4 file, base64. */
  spzBase64: string;
  /** The project's saved camera paths (shared/scene/camera-path.ts), in the splats' world frame. */
  cameraPaths: CameraPath[];
  /** The training cameras, only for which way is up (their mean image-up); empty for a splat file. */
  cameras: PinholeCamera[];
}

/** `scene.js`: the payload assigned to the global. JSON is valid JavaScript; `<` is escaped so the script may be inlined in HTML. */
export function webSceneScript(scene: WebScene): string {
  return `window[${JSON.stringify(WEB_SCENE_GLOBAL)}] = ${JSON.stringify(scene).replace(/</g, '\\u003c')};\n`;
}
