/**
 * The Export view's mesh preview: a Babylon scene that draws one triangle mesh (positions,
 * indices, sRGB vertex colours) with an orbit camera fitted to it. Built from the arrays with
 * VertexData (no loader: @babylonjs/loaders is not a dependency). Loaded lazily by MeshPreview.vue
 * so Babylon stays out of the main chunk.
 *
 * Frames: the engine's world is right-handed with OpenCV cameras (y down); as in the splat viewer
 * (docs/gui.md), a parent node scaled (1, -1, 1) maps it into Babylon's left-handed y-up world.
 * The reflection flips the winding, so both faces are drawn (backFaceCulling off).
 */
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera.js';
import { Engine } from '@babylonjs/core/Engines/engine.js';
import { HemisphericLight } from '@babylonjs/core/Lights/hemisphericLight.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { VertexData } from '@babylonjs/core/Meshes/mesh.vertexData.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Scene } from '@babylonjs/core/scene.js';

export interface PreviewMesh {
  positions: Float32Array;
  colors: Uint8Array;
  indices: Uint32Array;
  normals?: Float32Array;
}

export class MeshPreviewScene {
  private readonly engine: Engine;
  private readonly scene: Scene;
  private readonly camera: ArcRotateCamera;
  private readonly root: TransformNode;
  private mesh: Mesh | undefined;

  constructor(canvas: HTMLCanvasElement) {
    this.engine = new Engine(canvas, true, { preserveDrawingBuffer: true, stencil: false }, true);
    this.scene = new Scene(this.engine);
    this.scene.clearColor = new Color4(0.08, 0.09, 0.11, 1);
    this.camera = new ArcRotateCamera('preview-camera', -Math.PI / 3, Math.PI / 3, 3, Vector3.Zero(), this.scene);
    this.camera.attachControl(canvas, true);
    this.camera.wheelPrecision = 40;
    this.camera.minZ = 0.01;
    const light = new HemisphericLight('preview-light', new Vector3(0.3, 1, -0.4), this.scene);
    light.groundColor = new Color3(0.35, 0.35, 0.4);
    this.root = new TransformNode('engine-world', this.scene);
    this.root.scaling = new Vector3(1, -1, 1);
    this.engine.runRenderLoop(() => this.scene.render());
  }

  /** Replaces the mesh on screen and fits the camera to it. */
  show(data: PreviewMesh): void {
    this.mesh?.dispose();
    const vertexCount = data.positions.length / 3;
    const colors = new Float32Array(vertexCount * 4);
    for (let v = 0; v < vertexCount; v++) {
      colors[4 * v] = data.colors[3 * v] / 255;
      colors[4 * v + 1] = data.colors[3 * v + 1] / 255;
      colors[4 * v + 2] = data.colors[3 * v + 2] / 255;
      colors[4 * v + 3] = 1;
    }
    const vertexData = new VertexData();
    vertexData.positions = data.positions;
    vertexData.indices = data.indices;
    vertexData.colors = colors;
    const normals = data.normals ?? new Float32Array(data.positions.length);
    if (!data.normals) VertexData.ComputeNormals(data.positions, data.indices, normals);
    vertexData.normals = normals;
    const mesh = new Mesh('extracted-mesh', this.scene);
    vertexData.applyToMesh(mesh);
    const material = new StandardMaterial('mesh-material', this.scene);
    material.backFaceCulling = false;
    material.specularColor = new Color3(0.08, 0.08, 0.08);
    mesh.material = material;
    mesh.parent = this.root;
    this.mesh = mesh;
    this.fit();
  }

  /** Orbit target at the mesh's bounding-box centre, radius from its size. */
  fit(): void {
    if (!this.mesh) return;
    this.mesh.computeWorldMatrix(true);
    const { minimumWorld, maximumWorld } = this.mesh.getBoundingInfo().boundingBox;
    const size = maximumWorld.subtract(minimumWorld).length();
    this.camera.setTarget(minimumWorld.add(maximumWorld).scale(0.5));
    this.camera.radius = Math.max(0.1, 0.95 * size);
  }

  resize(): void {
    this.engine.resize();
  }

  dispose(): void {
    this.engine.stopRenderLoop();
    this.scene.dispose();
    this.engine.dispose();
  }
}
