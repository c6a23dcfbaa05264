/**
 * The studio's 3D viewer: Babylon.js on a canvas (WebGL2), one GaussianSplattingMesh whose data is
 * replaced in place by `setSplats` (live training snapshots call it, throttled here: at most one
 * update in flight, the newest data wins), training cameras as frustum lines, an SfM point cloud,
 * orbit and fly cameras, fit-to-scene.
 *
 * Frames: everything the engine sends is in its own world frame (right-handed, OpenCV cameras).
 * It is placed under one node, `engineWorld`, whose scaling is the engine -> Babylon reflection
 * (opencv-frame.ts explains it). Nothing else in the viewer converts coordinates.
 *
 * This module is loaded lazily (Babylon is large); nothing in it is reactive: Vue components hold
 * a SplatViewer with markRaw and read `stats()` on a timer.
 *
 * Over 400 lines on purpose: one Babylon scene whose cameras, meshes and update queue share
 * private state; splitting it would only pass that state around.
 */
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera.js';
import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import { UniversalCamera } from '@babylonjs/core/Cameras/universalCamera.js';
import { Engine } from '@babylonjs/core/Engines/engine.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateLineSystem } from '@babylonjs/core/Meshes/Builders/linesBuilder.js';
import { GaussianSplattingMesh } from '@babylonjs/core/Meshes/GaussianSplatting/gaussianSplattingMesh.js';
import type { LinesMesh } from '@babylonjs/core/Meshes/linesMesh.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { VertexData } from '@babylonjs/core/Meshes/mesh.vertexData.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Scene } from '@babylonjs/core/scene.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { babylonCameraPose, babylonUpFromCameras, cameraCenter, ENGINE_TO_BABYLON_SCALING, frustumWorldPoints, type Vec3 } from './opencv-frame.js';
import { robustBounds, viewSplatBuffer, type Bounds } from './splat-layout.js';
import { viewPinhole } from './edit/view-camera.js';

export type CameraMode = 'orbit' | 'fly';

export interface ViewerStats {
  splatCount: number;
  /** Frames per second, averaged by Babylon over the last frames. */
  fps: number;
  mode: CameraMode;
  /** Index of the training camera being looked through (fly mode, not moved away by Fit), if any. */
  lookingThrough: number | undefined;
  /** Splat buffers applied so far (bursts of setSplats coalesce into fewer). */
  updatesApplied: number;
  /** Share of the canvas's pixels rendered (1: full resolution; less while frames are slow). */
  resolutionScale: number;
}

export interface SplatViewerOptions {
  /** Fewest milliseconds between two applied `setSplats` calls (default 250). */
  minUpdateIntervalMs?: number;
  /** Background as 0..1 RGB (default a dark blue-grey). */
  background?: readonly [number, number, number];
}

const FRUSTUM_COLOUR = new Color4(0.98, 0.78, 0.25, 1);
const FRUSTUM_SELECTED_COLOUR = new Color4(0.35, 0.85, 1, 1);

export class SplatViewer {
  readonly engine: Engine;
  readonly scene: Scene;
  /** Parent of everything in engine coordinates; its scaling is the engine -> Babylon reflection. */
  readonly engineWorld: TransformNode;
  private readonly orbit: ArcRotateCamera;
  private readonly fly: UniversalCamera;
  private mode: CameraMode = 'orbit';
  private splatMesh: GaussianSplattingMesh | undefined;
  private splatCount = 0;
  private updatesApplied = 0;
  private splatBounds: Bounds | undefined;
  private cameras: PinholeCamera[] = [];
  /** The scene's up (Babylon frame), from the training cameras; orbit and fly keep it up. */
  private up = Vector3.Up();
  private frustums: LinesMesh | undefined;
  private frustumsVisible = true;
  private selectedCamera: number | undefined;
  private points: Mesh | undefined;
  private pointBounds: Bounds | undefined;
  private pointsVisible = false;
  private splatsVisible = true;
  private readonly minUpdateIntervalMs: number;
  private queued: { buffer: ArrayBuffer; count: number; waiters: (() => void)[]; failers: ((e: unknown) => void)[] } | undefined;
  private updating = false;
  private lastUpdateAt = -Infinity;
  private pumpTimer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  private fitted = false;
  /** Adaptive resolution: Babylon's hardware scaling level (its device-ratio level = every pixel), frames counted per check. */
  private readonly baseScalingLevel: number;
  private scalingLevel: number;
  private framesSinceCheck = 0;
  private lastCheckAt = performance.now();
  private readonly scalingTimer: ReturnType<typeof setInterval>;

  constructor(readonly canvas: HTMLCanvasElement, options: SplatViewerOptions = {}) {
    this.minUpdateIntervalMs = options.minUpdateIntervalMs ?? 250;
    this.engine = new Engine(canvas, true, { preserveDrawingBuffer: false, stencil: false, powerPreference: 'high-performance' }, true);
    this.scene = new Scene(this.engine);
    this.baseScalingLevel = this.scalingLevel = this.engine.getHardwareScalingLevel();
    this.setBackground(options.background ?? [0.055, 0.063, 0.082]);

    this.engineWorld = new TransformNode('engineWorld', this.scene);
    this.engineWorld.scaling = new Vector3(...ENGINE_TO_BABYLON_SCALING);

    this.orbit = new ArcRotateCamera('orbit', -Math.PI / 2 + 0.5, 1.05, 10, Vector3.Zero(), this.scene);
    this.orbit.minZ = 0.01;
    this.orbit.maxZ = 10000;
    this.orbit.wheelDeltaPercentage = 0.01;
    this.orbit.panningSensibility = 200;
    this.orbit.lowerRadiusLimit = 0.01;
    this.orbit.attachControl(true);

    this.fly = new UniversalCamera('fly', new Vector3(0, 0, -10), this.scene);
    this.fly.minZ = 0.01;
    this.fly.maxZ = 10000;
    this.fly.keysUp = [87]; // W
    this.fly.keysDown = [83]; // S
    this.fly.keysLeft = [65]; // A
    this.fly.keysRight = [68]; // D
    this.fly.keysUpward = [69]; // E
    this.fly.keysDownward = [81]; // Q
    this.fly.angularSensibility = 1500;
    this.fly.inertia = 0.6;

    this.scene.activeCamera = this.orbit;
    this.engine.runRenderLoop(() => {
      this.scene.render();
      this.framesSinceCheck++;
    });
    this.scalingTimer = setInterval(() => this.adaptResolution(), 1000);
  }

  /**
   * Splatting is fill-rate bound: big splats close to the camera on a software rasterizer
   * (SwiftShader, llvmpipe) or a weak GPU can take seconds per frame at full resolution. Render at
   * fewer pixels while frames are slow (down to a quarter of the width), and come back when fast.
   */
  private adaptResolution(): void {
    const now = performance.now();
    const fps = (this.framesSinceCheck * 1000) / Math.max(1, now - this.lastCheckAt);
    this.framesSinceCheck = 0;
    this.lastCheckAt = now;
    const [min, max] = [this.baseScalingLevel, this.baseScalingLevel * 4];
    let level = this.scalingLevel;
    if (fps < 12 && level < max) level = Math.min(max, level * 1.5);
    else if (fps > 40 && level > min) level = Math.max(min, level / 1.25);
    if (level !== this.scalingLevel) {
      this.scalingLevel = level;
      this.engine.setHardwareScalingLevel(level);
      const material = this.points?.material as StandardMaterial | null | undefined;
      if (material) material.pointSize = this.pointSizePx();
    }
  }

  /** SfM points are 3 CSS pixels wide whatever the render resolution (point size counts render pixels). */
  private pointSizePx(): number {
    return Math.max(1, (3 * this.baseScalingLevel) / this.scalingLevel);
  }

  /**
   * Replaces the splats with `count` records of `buffer` (32-byte ".splat" layout, splat-layout.ts)
   * without recreating the mesh. Calls closer together than `minUpdateIntervalMs`, or made while an
   * update is in progress, coalesce: only the newest buffer is applied. Resolves once the data given
   * (or newer data that replaced it) is on the GPU.
   */
  setSplats(buffer: ArrayBuffer, count: number): Promise<void> {
    viewSplatBuffer(buffer, count); // validates the size before anything is queued
    // nothing is queued once disposed: it would never be applied, and its promise never settle
    if (this.disposed) return Promise.reject(new Error('viewer disposed'));
    return new Promise((resolve, reject) => {
      const waiters = [...(this.queued?.waiters ?? []), resolve];
      const failers = [...(this.queued?.failers ?? []), reject];
      this.queued = { buffer, count, waiters, failers };
      this.pump();
    });
  }

  private pump(): void {
    if (this.updating || !this.queued || this.disposed || this.pumpTimer) return;
    const wait = this.lastUpdateAt + this.minUpdateIntervalMs - performance.now();
    if (wait > 0) {
      this.pumpTimer = setTimeout(() => {
        this.pumpTimer = undefined;
        this.pump();
      }, wait);
      return;
    }
    const job = this.queued;
    this.queued = undefined;
    this.updating = true;
    this.applySplats(job.buffer, job.count)
      .then(() => job.waiters.forEach((w) => w()), (error: unknown) => job.failers.forEach((f) => f(error)))
      .finally(() => {
        this.updating = false;
        this.lastUpdateAt = performance.now();
        this.pump();
      });
  }

  private async applySplats(buffer: ArrayBuffer, count: number): Promise<void> {
    const views = viewSplatBuffer(buffer, count);
    // Babylon reads exactly count * 32 bytes from the buffer it is given.
    const data = buffer.byteLength === count * 32 ? buffer : buffer.slice(0, count * 32);
    if (!this.splatMesh) {
      this.splatMesh = new GaussianSplattingMesh('splats', null, this.scene, false);
      this.splatMesh.parent = this.engineWorld;
    }
    if (count > 0) {
      try {
        await this.splatMesh.updateDataAsync(data);
      } catch (error) {
        // disposed while the data went up (the view left mid-update): the mesh has no scene left,
        // and what the update failed on is no longer anyone's
        if (this.disposed) return;
        throw error;
      }
    }
    // nothing of a disposed scene is touched again (its meshes have no scene: getEngine of null)
    if (this.disposed) return;
    this.splatMesh.setEnabled(count > 0 && this.splatsVisible);
    this.splatCount = count;
    this.updatesApplied++;
    const first = !this.splatBounds;
    this.splatBounds = robustBounds(views);
    if (first) this.rebuildFrustums(); // frustum size follows the scene's size
    if (!this.fitted) this.fitToScene();
  }

  /** Training cameras, drawn as frustums (image top marked by a small triangle). */
  setCameras(cameras: readonly PinholeCamera[]): void {
    this.cameras = [...cameras];
    this.up = new Vector3(...babylonUpFromCameras(this.cameras));
    if (this.mode === 'orbit') {
      this.orbit.upVector = this.up.clone();
      if (this.fitted) this.fitToScene();
    }
    if (this.selectedCamera !== undefined && this.selectedCamera >= this.cameras.length) this.selectedCamera = undefined;
    this.rebuildFrustums();
  }

  private rebuildFrustums(): void {
    this.frustums?.dispose();
    this.frustums = undefined;
    if (this.cameras.length === 0) return;
    const depth = this.sceneRadius() * 0.12;
    const lines: Vector3[][] = [];
    const colors: Color4[][] = [];
    this.cameras.forEach((camera, index) => {
      if (index === this.selectedCamera && this.mode === 'fly') return; // looking through it: its frustum would frame the view
      const [apex, c0, c1, c2, c3] = frustumWorldPoints(camera, depth).map((p) => new Vector3(...p));
      // Image-top marker: a triangle above the top edge (c0 -> c1), pointing away from image down.
      const topMid = c0.add(c1).scale(0.5);
      const upward = topMid.subtract(c3.add(c2).scale(0.5)).scale(0.25);
      const tip = topMid.add(upward);
      const shape = [
        [apex, c0], [apex, c1], [apex, c2], [apex, c3],
        [c0, c1, c2, c3, c0],
        [c0.add(c1.subtract(c0).scale(0.3)), tip, c0.add(c1.subtract(c0).scale(0.7))],
      ];
      const colour = index === this.selectedCamera ? FRUSTUM_SELECTED_COLOUR : FRUSTUM_COLOUR;
      for (const line of shape) {
        lines.push(line);
        colors.push(line.map(() => colour));
      }
    });
    this.frustums = CreateLineSystem('frustums', { lines, colors }, this.scene);
    this.frustums.parent = this.engineWorld;
    this.frustums.isPickable = false;
    this.frustums.setEnabled(this.frustumsVisible);
  }

  setFrustumsVisible(visible: boolean): void {
    this.frustumsVisible = visible;
    this.frustums?.setEnabled(visible);
  }

  /** SfM points: xyz per point (engine frame) and RGBA bytes per point. */
  setPoints(positions: Float32Array, colors: Uint8Array, count: number): void {
    if (positions.length < count * 3 || colors.length < count * 4) {
      throw new RangeError(`points: ${count} points need ${count * 3} coordinates and ${count * 4} colour bytes, got ${positions.length} and ${colors.length}`);
    }
    this.points?.dispose(false, true);
    this.points = undefined;
    this.pointBounds = undefined;
    if (count === 0) return;
    const vertexData = new VertexData();
    vertexData.positions = positions.subarray(0, count * 3);
    const rgba = new Float32Array(count * 4);
    for (let i = 0; i < count * 4; i++) rgba[i] = colors[i] / 255;
    vertexData.colors = rgba;
    const mesh = new Mesh('sfmPoints', this.scene);
    vertexData.applyToMesh(mesh, false);
    const material = new StandardMaterial('sfmPointsMaterial', this.scene);
    material.pointsCloud = true;
    material.pointSize = this.pointSizePx();
    // Unlit: with lighting disabled the standard shader's colour is (emissive + ambient) x vertex colour.
    material.disableLighting = true;
    material.emissiveColor = Color3.White();
    mesh.material = material;
    mesh.parent = this.engineWorld;
    mesh.isPickable = false;
    mesh.setEnabled(this.pointsVisible);
    this.points = mesh;
    const min: Vec3 = [Infinity, Infinity, Infinity];
    const max: Vec3 = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < count; i++) {
      for (let a = 0; a < 3; a++) {
        min[a] = Math.min(min[a], positions[i * 3 + a]);
        max[a] = Math.max(max[a], positions[i * 3 + a]);
      }
    }
    this.pointBounds = { min, max };
  }

  /** Hides the splats (to inspect SfM points and cameras alone) without dropping them. */
  setSplatsVisible(visible: boolean): void {
    this.splatsVisible = visible;
    this.splatMesh?.setEnabled(visible && this.splatCount > 0);
  }

  setPointsVisible(visible: boolean): void {
    this.pointsVisible = visible;
    this.points?.setEnabled(visible);
  }

  /** Orbit (drag to rotate, wheel to zoom, right-drag to pan) or fly (WASD + QE, drag to look). */
  setMode(mode: CameraMode): void {
    if (mode === this.mode) return;
    const from = this.scene.activeCamera!;
    from.detachControl();
    if (mode === 'fly') {
      this.fly.position.copyFrom(this.orbit.position);
      this.fly.upVector = this.up.clone();
      this.fly.setTarget(this.orbit.target.clone());
      this.fly.fov = this.orbit.fov;
      this.fly.speed = Math.max(0.01, this.sceneRadius() / 40);
      this.activate(this.fly);
    } else {
      const forward = this.fly.getDirection(Vector3.Forward());
      const target = this.fly.position.add(forward.scale(this.orbit.radius));
      this.orbit.upVector = this.up.clone();
      this.orbit.setTarget(target);
      this.orbit.setPosition(this.fly.position.clone());
      this.activate(this.orbit);
    }
    this.mode = mode;
    // The camera last looked through stays highlighted in orbit; redraw to show its frustum again.
    this.rebuildFrustums();
  }

  private activate(camera: Camera): void {
    this.scene.activeCamera = camera;
    camera.attachControl(true);
  }

  /**
   * Frames the content (splats, else SfM points, else the cameras) keeping the view direction.
   * Training cameras usually stand farther out than the content; zoom out to see their frustums.
   */
  fitToScene(): void {
    const bounds = this.sceneBounds();
    if (!bounds) return;
    this.fitted = true;
    const centreEngine = [0, 1, 2].map((a) => (bounds.min[a] + bounds.max[a]) / 2) as Vec3;
    const centre = new Vector3(...centreEngine).multiplyByFloats(...ENGINE_TO_BABYLON_SCALING);
    const radius = this.sceneRadius();
    const distance = (1.1 * radius) / Math.sin(this.orbit.fov / 2);
    if (this.mode === 'orbit') {
      this.orbit.upVector = this.up.clone();
      this.orbit.setTarget(centre);
      this.orbit.radius = distance;
      this.orbit.lowerRadiusLimit = radius * 0.01;
    } else {
      const back = this.fly.getDirection(Vector3.Forward()).scale(-distance);
      this.fly.position = centre.add(back);
      this.fly.setTarget(centre);
      this.fly.speed = Math.max(0.01, radius / 40);
    }
    this.orbit.minZ = this.fly.minZ = Math.max(1e-4, radius * 1e-3);
    this.orbit.maxZ = this.fly.maxZ = radius * 1000;
    this.orbit.wheelDeltaPercentage = 0.01;
    this.orbit.panningSensibility = 2000 / Math.max(radius, 1e-3);
    this.selectCamera(undefined);
  }

  /** Moves the fly camera to training camera `index` so the view matches its photo; undefined leaves it. */
  lookThrough(index: number): void {
    const camera = this.cameras[index];
    if (!camera) throw new RangeError(`lookThrough: no camera ${index} (there are ${this.cameras.length})`);
    this.flyTo(camera);
    this.fly.speed = Math.max(0.01, this.sceneRadius() / 40);
    this.selectedCamera = index;
    this.rebuildFrustums();
  }

  /**
   * Puts the view at `camera`'s pose and vertical field of view (fly mode; a camera path's
   * preview). Its intrinsics other than the field of view are not modelled: the canvas keeps its
   * aspect ratio.
   */
  setViewCamera(camera: PinholeCamera): void {
    this.flyTo(camera);
    this.selectCamera(undefined);
  }

  /** The fly camera (made active) at `camera`'s pose and vertical field of view. */
  private flyTo(camera: PinholeCamera): void {
    const pose = babylonCameraPose(camera);
    if (this.mode !== 'fly') {
      this.scene.activeCamera?.detachControl();
      this.mode = 'fly';
      this.activate(this.fly);
    }
    this.fly.position = new Vector3(...pose.position);
    this.fly.upVector = new Vector3(...pose.up);
    this.fly.setTarget(this.fly.position.add(new Vector3(...pose.forward)));
    this.fly.fov = pose.fovYRadians;
  }

  /**
   * The training camera whose frustum (its apex or the middle of its image rectangle) is drawn
   * nearest to canvas point (x, y), in CSS pixels from the canvas's top-left, within `radiusPx`;
   * undefined when none is (or frustums are hidden). Clicking a frustum looks through it.
   */
  cameraAt(x: number, y: number, radiusPx = 24): number | undefined {
    const active = this.scene.activeCamera;
    if (!active || !this.frustumsVisible || this.cameras.length === 0) return undefined;
    const width = this.engine.getRenderWidth();
    const height = this.engine.getRenderHeight();
    const scaleX = this.canvas.clientWidth / width;
    const scaleY = this.canvas.clientHeight / height;
    const world = this.engineWorld.computeWorldMatrix(true);
    const transform = active.getTransformationMatrix();
    const viewport = active.viewport.toGlobal(width, height);
    const depth = this.sceneRadius() * 0.12;
    let best: number | undefined;
    let bestDistance = radiusPx;
    this.cameras.forEach((camera, index) => {
      if (index === this.selectedCamera && this.mode === 'fly') return; // not drawn
      const [apex, c0, c1, c2, c3] = frustumWorldPoints(camera, depth);
      const middle = [0, 1, 2].map((a) => (c0[a] + c1[a] + c2[a] + c3[a]) / 4) as Vec3;
      for (const p of [apex, middle]) {
        const s = Vector3.Project(new Vector3(...p), world, transform, viewport);
        if (!(s.z > 0 && s.z < 1)) continue; // behind the viewer or past the far plane
        const distance = Math.hypot(s.x * scaleX - x, s.y * scaleY - y);
        if (distance < bestDistance) {
          bestDistance = distance;
          best = index;
        }
      }
    });
    return best;
  }

  private selectCamera(index: number | undefined): void {
    if (index === this.selectedCamera) return;
    this.selectedCamera = index;
    this.rebuildFrustums();
  }

  setBackground(rgb: readonly [number, number, number]): void {
    this.scene.clearColor = new Color4(rgb[0], rgb[1], rgb[2], 1);
  }

  /** The current view as the engine's pinhole camera, in CSS pixels of the canvas (edit selections use it). */
  viewCamera(): PinholeCamera {
    const camera = this.scene.activeCamera!;
    return viewPinhole({ viewMatrix: camera.getViewMatrix(true).m, fovYRadians: camera.fov, width: this.canvas.clientWidth, height: this.canvas.clientHeight });
  }

  /** Centre of the content's robust bounds, Babylon frame (where edit helpers start). */
  sceneCentre(): Vec3 {
    const b = this.sceneBounds();
    if (!b) return [0, 0, 0];
    return [0, 1, 2].map((a) => ((b.min[a] + b.max[a]) / 2) * ENGINE_TO_BABYLON_SCALING[a]) as Vec3;
  }

  /** Diagonal of the content's robust bounds. */
  sceneSize(): number {
    return 2 * this.sceneRadius();
  }

  stats(): ViewerStats {
    const lookingThrough = this.mode === 'fly' ? this.selectedCamera : undefined;
    return { splatCount: this.splatCount, fps: this.engine.getFps(), mode: this.mode, lookingThrough, updatesApplied: this.updatesApplied, resolutionScale: this.baseScalingLevel / this.scalingLevel };
  }

  resize(): void {
    this.engine.resize();
  }

  /** True once dispose() ran: what finishes later (a lazily loaded tool, an update) leaves it alone. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.scalingTimer);
    if (this.pumpTimer) clearTimeout(this.pumpTimer);
    this.queued?.failers.forEach((f) => f(new Error('viewer disposed')));
    this.queued = undefined;
    this.engine.stopRenderLoop();
    this.scene.dispose();
    this.engine.dispose();
  }

  /** Bounds of the content: splats, else SfM points, else camera centres. */
  private sceneBounds(): Bounds | undefined {
    if (this.splatBounds) return this.splatBounds;
    if (this.pointBounds) return this.pointBounds;
    return this.cameraBounds();
  }

  private cameraBounds(): Bounds | undefined {
    if (this.cameras.length === 0) return undefined;
    const centres = this.cameras.map(cameraCenter);
    const min = [0, 1, 2].map((a) => Math.min(...centres.map((c) => c[a]))) as Vec3;
    const max = [0, 1, 2].map((a) => Math.max(...centres.map((c) => c[a]))) as Vec3;
    return { min, max };
  }

  private sceneRadius(): number {
    const b = this.sceneBounds();
    if (!b) return 1;
    return Math.max(1e-3, 0.5 * Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]));
  }
}
