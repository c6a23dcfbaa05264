/**
 * What edit mode needs of a live viewer: the view as a pinhole camera, the view's up and the
 * scene's centre in the engine's frame, and the 3D helpers (gizmos), made on first use. Loaded
 * lazily with the viewer (it pulls in Babylon's gizmos).
 */
import type { PinholeCamera } from '../../../../shared/scene/camera.js';
import { ENGINE_TO_BABYLON_SCALING, type Vec3 } from '../opencv-frame.js';
import type { SplatViewer } from '../splat-viewer.js';
import { EditGizmos } from './edit-gizmos.js';

export class EditSession {
  private gizmoSet: EditGizmos | undefined;

  constructor(readonly viewer: SplatViewer) {}

  get gizmos(): EditGizmos {
    this.gizmoSet ??= new EditGizmos(this.viewer);
    return this.gizmoSet;
  }

  viewCamera(): PinholeCamera {
    return this.viewer.viewCamera();
  }

  /** The view's up (image up, -down row of worldToCamera) in the engine's frame. */
  viewUp(): Vec3 {
    const m = this.viewCamera().worldToCamera;
    return [-m[4], -m[5], -m[6]];
  }

  sceneCentre(): Vec3 {
    const c = this.viewer.sceneCentre();
    return [0, 1, 2].map((a) => c[a] * ENGINE_TO_BABYLON_SCALING[a]) as Vec3;
  }

  dispose(): void {
    this.gizmoSet?.dispose();
    this.gizmoSet = undefined;
  }
}
