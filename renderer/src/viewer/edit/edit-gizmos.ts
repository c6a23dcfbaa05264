/**
 * The Viewer's 3D edit helpers: a wireframe box or sphere (the selection / crop shape) and the
 * scene-transform handle, each moved, turned and scaled with Babylon's GizmoManager.
 *
 * Helpers live in Babylon's world, not under `engineWorld` (whose reflection would make the
 * gizmos drag against the mouse); engine-frame.ts maps them back. The scene transform is shown
 * live by re-parenting `engineWorld` under the handle (through a node offset by -pivot, so the
 * handle turns and scales the scene about the pivot); `endTransform` puts it back.
 */
import { GizmoManager } from '@babylonjs/core/Gizmos/gizmoManager.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import { CreateSphere } from '@babylonjs/core/Meshes/Builders/sphereBuilder.js';
import type { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import type { OrientedBox, Similarity } from '../../../../shared/edits/edit-list.js';
import type { Vec3 } from '../opencv-frame.js';
import type { SplatViewer } from '../splat-viewer.js';
import { gizmoToSimilarity, helperToOrientedBox, type BabylonTransform, type Quat } from './engine-frame.js';

export type HelperKind = 'box' | 'sphere';
export type GizmoKind = 'move' | 'rotate' | 'scale';

function transformOf(node: TransformNode): BabylonTransform {
  const q = node.rotationQuaternion ?? Quaternion.FromEulerVector(node.rotation);
  return { position: node.position.asArray() as Vec3, rotation: [q.x, q.y, q.z, q.w] as Quat, scaling: node.scaling.asArray() as Vec3 };
}

export class EditGizmos {
  private readonly gizmos: GizmoManager;
  private helper: Mesh | undefined;
  private helperKind: HelperKind | undefined;
  private transformHandle: TransformNode | undefined;
  private pivotOffset: TransformNode | undefined;
  private pivot: Vec3 = [0, 0, 0];
  private gizmoKind: GizmoKind = 'move';

  constructor(private readonly viewer: SplatViewer) {
    this.gizmos = new GizmoManager(viewer.scene);
    this.gizmos.usePointerToAttachGizmos = false;
    this.setGizmo('move');
  }

  /** Which handle the gizmo shows: arrows (move), rings (rotate) or boxes (scale). */
  setGizmo(kind: GizmoKind): void {
    this.gizmoKind = kind;
    this.gizmos.positionGizmoEnabled = kind === 'move';
    this.gizmos.rotationGizmoEnabled = kind === 'rotate';
    this.gizmos.scaleGizmoEnabled = kind === 'scale';
    const scale = this.gizmos.gizmos.scaleGizmo;
    if (scale && this.transformHandle) {
      // The scene scales uniformly only (a similarity): keep the centre box, drop the axis handles.
      scale.xGizmo.isEnabled = scale.yGizmo.isEnabled = scale.zGizmo.isEnabled = false;
    } else if (scale) {
      scale.xGizmo.isEnabled = scale.yGizmo.isEnabled = scale.zGizmo.isEnabled = true;
    }
  }

  get gizmo(): GizmoKind {
    return this.gizmoKind;
  }

  /** Shows the box or sphere helper, placed over the middle of the scene the first time. */
  showHelper(kind: HelperKind): void {
    if (this.helperKind !== kind) {
      const previous = this.helper ? transformOf(this.helper) : undefined;
      this.helper?.dispose(false, true);
      const scene = this.viewer.scene;
      const mesh = kind === 'box' ? CreateBox('editBox', { size: 1 }, scene) : CreateSphere('editSphere', { diameter: 1, segments: 16 }, scene);
      const material = new StandardMaterial(`${mesh.name}Material`, scene);
      material.wireframe = true;
      material.disableLighting = true;
      material.emissiveColor = new Color3(1, 0.77, 0);
      mesh.material = material;
      mesh.isPickable = false;
      mesh.rotationQuaternion = Quaternion.Identity();
      if (previous) {
        mesh.position = Vector3.FromArray(previous.position);
        mesh.rotationQuaternion = Quaternion.FromArray(previous.rotation);
        mesh.scaling = Vector3.FromArray(previous.scaling);
      } else {
        mesh.position = Vector3.FromArray(this.viewer.sceneCentre());
        const size = this.viewer.sceneSize() * 0.4; // a cube about the middle of the content, not all of it
        mesh.scaling = new Vector3(size, size, size);
      }
      this.helper = mesh;
      this.helperKind = kind;
    }
    this.helper!.setEnabled(true);
    this.endTransform();
    this.setGizmo(this.gizmoKind);
    this.gizmos.attachToMesh(this.helper!);
  }

  hideHelper(): void {
    this.helper?.setEnabled(false);
    if (!this.transformHandle) this.gizmos.attachToNode(null);
  }

  /** The helper as the engine's oriented box (an ellipsoid's half axes for the sphere). */
  helperShape(): { kind: HelperKind; box: OrientedBox } | undefined {
    if (!this.helper || !this.helperKind || !this.helper.isEnabled()) return undefined;
    return { kind: this.helperKind, box: helperToOrientedBox(transformOf(this.helper)) };
  }

  /** Starts a live scene transform about the scene's centre; the gizmo moves the whole scene. */
  beginTransform(): void {
    if (this.transformHandle) return;
    this.hideHelper();
    const scene = this.viewer.scene;
    this.pivot = this.viewer.sceneCentre();
    const handle = new TransformNode('editTransform', scene);
    handle.position = Vector3.FromArray(this.pivot);
    handle.rotationQuaternion = Quaternion.Identity();
    const offset = new TransformNode('editPivotOffset', scene);
    offset.parent = handle;
    offset.position = Vector3.FromArray(this.pivot).scale(-1);
    this.viewer.engineWorld.parent = offset;
    this.transformHandle = handle;
    this.pivotOffset = offset;
    this.setGizmo(this.gizmoKind);
    this.gizmos.attachToNode(handle);
  }

  /** The live transform as the engine's similarity (identity before any drag). */
  transformShape(): Similarity | undefined {
    return this.transformHandle ? gizmoToSimilarity(this.pivot, transformOf(this.transformHandle)) : undefined;
  }

  /** Puts the scene back under nothing (the engine's edited splats carry the transform from now on). */
  endTransform(): void {
    if (!this.transformHandle) return;
    this.gizmos.attachToNode(null);
    this.viewer.engineWorld.parent = null;
    this.pivotOffset?.dispose();
    this.transformHandle.dispose();
    this.transformHandle = undefined;
    this.pivotOffset = undefined;
  }

  dispose(): void {
    this.endTransform();
    this.helper?.dispose(false, true);
    this.gizmos.dispose();
  }
}
