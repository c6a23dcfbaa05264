/**
 * The exported web viewer (issue 17): one page that shows an exported scene from disk or any
 * static host. scene.js has set the payload (shared/scene/web-scene.ts) before this script runs;
 * Babylon.js draws the splats (GaussianSplattingMesh, WebGL2) with an orbit camera (mouse drag,
 * touch, wheel and pinch: ArcRotateCamera's inputs) framed on the scene, and the saved camera
 * paths play through path-player.ts.
 *
 * Frames as in the studio's viewer (renderer/src/viewer/opencv-frame.ts): the splats sit under one
 * node whose scaling is the engine -> Babylon reflection; up is the training cameras' mean up.
 *
 * Built by scripts/build.mjs into out/web-viewer/viewer.js: one classic script (an IIFE, no
 * modules and no lazy chunks: a page from file:// may load neither), with index.html beside it.
 */
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera.js';
import { UniversalCamera } from '@babylonjs/core/Cameras/universalCamera.js';
import { Engine } from '@babylonjs/core/Engines/engine.js';
import { Color4 } from '@babylonjs/core/Maths/math.color.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { GaussianSplattingMesh } from '@babylonjs/core/Meshes/GaussianSplatting/gaussianSplattingMesh.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Scene } from '@babylonjs/core/scene.js';
import { babylonUpFromCameras, ENGINE_TO_BABYLON_SCALING, type Vec3 } from '../src/viewer/opencv-frame.js';
import { robustBounds, viewSplatBuffer } from '../src/viewer/splat-layout.js';
import { PathPlayer, type BabylonPose } from './path-player.js';
import { decodeScene, readScenePayload, type LoadedScene } from './scene-data.js';
import { bindControls } from './controls.js';

const BACKGROUND: Vec3 = [0.055, 0.063, 0.082];

/** What tests (and curious users, in the console) can read: window.argonautViewer. */
export interface ViewerStatus {
  state: 'loading' | 'ready' | 'error';
  error?: string;
  splatCount: number;
  /** Frames rendered since the splats were on the GPU. */
  framesSinceLoad: number;
  /** The active camera: 'orbit', or the id of the path being shown. */
  camera: string;
  pathTimeS: number;
}

function setState(status: ViewerStatus, state: ViewerStatus['state'], message?: string): void {
  status.state = state;
  document.body.dataset.state = state;
  if (message !== undefined) document.getElementById('message')!.textContent = message;
}

async function start(status: ViewerStatus): Promise<void> {
  const warn = (message: string) => console.warn(`[argonaut viewer] ${message}`);
  const scene: LoadedScene = decodeScene(readScenePayload(window as unknown as Record<string, unknown>), warn);
  document.title = `${scene.name} · Argonaut Studio`;
  document.getElementById('title')!.textContent = scene.name;
  document.getElementById('count')!.textContent = `${scene.splatCount.toLocaleString()} splats`;

  const canvas = document.getElementById('scene') as HTMLCanvasElement;
  const engine = new Engine(canvas, true, { preserveDrawingBuffer: false, stencil: false, powerPreference: 'high-performance' }, true);
  const babylon = new Scene(engine);
  babylon.clearColor = new Color4(...BACKGROUND, 1);
  const engineWorld = new TransformNode('engineWorld', babylon);
  engineWorld.scaling = new Vector3(...ENGINE_TO_BABYLON_SCALING);
  const up = new Vector3(...babylonUpFromCameras(scene.cameras));

  const orbit = new ArcRotateCamera('orbit', -Math.PI / 2 + 0.5, 1.05, 10, Vector3.Zero(), babylon);
  orbit.upVector = up.clone();
  orbit.wheelDeltaPercentage = 0.01;
  orbit.pinchDeltaPercentage = 0.01;
  orbit.attachControl(true);
  const tour = new UniversalCamera('path', Vector3.Zero(), babylon);
  babylon.activeCamera = orbit;

  const mesh = new GaussianSplattingMesh('splats', null, babylon, false);
  mesh.parent = engineWorld;
  await mesh.updateDataAsync(scene.splats);
  status.splatCount = scene.splatCount;

  const bounds = robustBounds(viewSplatBuffer(scene.splats, scene.splatCount));
  const centre = bounds ? new Vector3(...[0, 1, 2].map((a) => (bounds.min[a] + bounds.max[a]) / 2)).multiplyByFloats(...ENGINE_TO_BABYLON_SCALING) : Vector3.Zero();
  const radius = bounds ? Math.max(1e-3, 0.5 * Math.hypot(...[0, 1, 2].map((a) => bounds.max[a] - bounds.min[a]))) : 1;
  for (const camera of [orbit, tour]) {
    camera.minZ = Math.max(1e-4, radius * 1e-3);
    camera.maxZ = radius * 1000;
  }
  orbit.panningSensibility = 2000 / radius;
  orbit.lowerRadiusLimit = radius * 0.01;

  /** Frames the scene from the orbit camera's current direction. */
  function fit(): void {
    showOrbit();
    orbit.upVector = up.clone();
    orbit.setTarget(centre.clone());
    orbit.radius = (1.1 * radius) / Math.sin(orbit.fov / 2);
  }

  function showOrbit(): void {
    if (babylon.activeCamera === orbit) return;
    // Leave the tour where it is: the orbit continues from the path camera's view.
    const forward = tour.getDirection(Vector3.Forward());
    const distance = Math.max(radius * 0.05, Vector3.Dot(centre.subtract(tour.position), forward));
    orbit.upVector = up.clone();
    orbit.setTarget(tour.position.add(forward.scale(distance)));
    orbit.setPosition(tour.position.clone());
    orbit.fov = tour.fov;
    babylon.activeCamera = orbit;
    status.camera = 'orbit';
  }

  function showPose(pose: BabylonPose, pathId: string): void {
    tour.position = new Vector3(...pose.position);
    tour.upVector = new Vector3(...pose.up);
    tour.setTarget(tour.position.add(new Vector3(...pose.forward)));
    tour.fov = pose.fovYRadians;
    babylon.activeCamera = tour;
    status.camera = pathId;
  }

  const player = new PathPlayer();
  const controls = bindControls(scene.cameraPaths, player, { fit, showOrbit, showPose: (pose) => showPose(pose, player.current?.id ?? 'path') });
  fit();

  let last = performance.now();
  engine.runRenderLoop(() => {
    const now = performance.now();
    const elapsedS = (now - last) / 1000;
    last = now;
    if (player.current && (player.isPlaying || babylon.activeCamera === tour)) {
      const pose = player.advance(elapsedS);
      if (pose) showPose(pose, player.current.id);
      status.pathTimeS = player.time;
      controls.refresh();
    }
    babylon.render();
    status.framesSinceLoad++;
  });
  window.addEventListener('resize', () => engine.resize());
  setState(status, 'ready');
}

const status: ViewerStatus = { state: 'loading', splatCount: 0, framesSinceLoad: 0, camera: 'orbit', pathTimeS: 0 };
(window as unknown as { argonautViewer: ViewerStatus }).argonautViewer = status;
start(status).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  status.error = message;
  console.error(`[argonaut viewer] ${message}`);
  setState(status, 'error', `Could not show the scene: ${message}`);
});
