import { Matrix, Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { describe, expect, it } from 'vitest';
import { projectToPixel, type Vec3 } from '../../../../renderer/src/viewer/opencv-frame.js';
import { babylonRotationToEngine, gizmoToSimilarity, helperToOrientedBox, applySimilarity, type Quat } from '../../../../renderer/src/viewer/edit/engine-frame.js';
import { quatRotate as rotateVector } from '../../../../shared/math/quaternion.js';
import { viewPinhole } from '../../../../renderer/src/viewer/edit/view-camera.js';
import { freshSeed, rng } from '../../../helpers/random.js';

const F = (p: readonly number[]): Vec3 => [p[0], -p[1], p[2]];

describe('the view as the engine pinhole camera', () => {
  it('projects engine points to the pixels Babylon draws them at (random views, fresh seed)', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const u = (a: number, b: number) => a + (b - a) * random();
    for (let trial = 0; trial < 20; trial++) {
      const width = Math.round(u(300, 1600));
      const height = Math.round(u(200, 1000));
      const fov = u(0.4, 1.4);
      const eye = new Vector3(u(-5, 5), u(-5, 5), u(-5, 5));
      const target = new Vector3(u(-1, 1), u(-1, 1), u(-1, 1));
      const up = new Vector3(u(-1, 1), u(0.2, 1), u(-1, 1)).normalize();
      const view = Matrix.LookAtLH(eye, target, up);
      const projection = Matrix.PerspectiveFovLH(fov, width / height, 0.01, 1000);
      const camera = viewPinhole({ viewMatrix: view.m, fovYRadians: fov, width, height });
      let checked = 0;
      for (let k = 0; k < 30; k++) {
        const engine: Vec3 = [u(-3, 3), u(-3, 3), u(-3, 3)];
        const babylon = new Vector3(...F(engine));
        const screen = Vector3.Project(babylon, Matrix.Identity(), view.multiply(projection), { x: 0, y: 0, width, height } as never);
        const pixel = projectToPixel(camera, engine);
        const inFront = Vector3.TransformCoordinates(babylon, view).z > 0;
        expect(pixel !== undefined, `seed ${seed}: in front`).toBe(inFront);
        if (!pixel || Math.abs(pixel[0]) > 4 * width || Math.abs(pixel[1]) > 4 * height) continue; // Babylon's float32 matrices lose pixels far off screen
        expect(pixel[0], `seed ${seed}`).toBeCloseTo(screen.x, 2);
        expect(pixel[1], `seed ${seed}`).toBeCloseTo(screen.y, 2);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
      // a rigid transform: the rotation rows are orthonormal
      const m = camera.worldToCamera;
      for (let r = 0; r < 3; r++) expect(Math.hypot(m[r * 4], m[r * 4 + 1], m[r * 4 + 2])).toBeCloseTo(1, 5);
    }
  });

  it('refuses a matrix of the wrong size, an empty canvas and a flat field of view by name', () => {
    expect(() => viewPinhole({ viewMatrix: [1, 2, 3], fovYRadians: 1, width: 10, height: 10 })).toThrow(/view matrix/);
    expect(() => viewPinhole({ viewMatrix: Matrix.Identity().m, fovYRadians: 1, width: 0, height: 10 })).toThrow(/view size/);
    expect(() => viewPinhole({ viewMatrix: Matrix.Identity().m, fovYRadians: 0, width: 10, height: 10 })).toThrow(/field of view/);
  });
});

describe('helpers in the Babylon world as engine shapes', () => {
  const seed = freshSeed();
  const random = rng(seed);
  const u = (a: number, b: number) => a + (b - a) * random();
  const randomQuat = (): Quat => {
    const q = new Quaternion(u(-1, 1), u(-1, 1), u(-1, 1), u(-1, 1)).normalize();
    return [q.x, q.y, q.z, q.w];
  };

  it('maps a rotation so that rotating then reflecting equals reflecting then rotating', () => {
    for (let k = 0; k < 50; k++) {
      const q = randomQuat();
      const p: Vec3 = [u(-2, 2), u(-2, 2), u(-2, 2)];
      // Babylon rotates a Babylon point; the engine's rotation must do the same to the engine point.
      const babylon = Vector3.TransformCoordinates(new Vector3(...p), Matrix.FromQuaternionToRef(new Quaternion(...q), new Matrix()));
      const engine = rotateVector(babylonRotationToEngine(q), F(p));
      F([babylon.x, babylon.y, babylon.z]).forEach((v, a) => expect(engine[a], `seed ${seed}`).toBeCloseTo(v, 5)); // Babylon's matrices are float32
    }
  });

  it('turns a unit box helper into the oriented box whose corners are the helper mesh corners', () => {
    const rotation = randomQuat();
    const position: Vec3 = [u(-2, 2), u(-2, 2), u(-2, 2)];
    const scaling: Vec3 = [u(0.1, 3), u(0.1, 3), u(0.1, 3)];
    const box = helperToOrientedBox({ position, rotation, scaling });
    const world = Matrix.Compose(new Vector3(...scaling), new Quaternion(...rotation), new Vector3(...position));
    const corner = Vector3.TransformCoordinates(new Vector3(0.5, -0.5, 0.5), world);
    // the same corner from the engine box: the helper's local axes are reflected too, so centre + R F (hx, -hy, hz)
    const local = rotateVector(box.rotation as Quat, [box.halfSize[0], box.halfSize[1], box.halfSize[2]]);
    const fromBox = [0, 1, 2].map((a) => box.centre[a] + local[a]);
    F([corner.x, corner.y, corner.z]).forEach((v, a) => expect(fromBox[a], `seed ${seed}`).toBeCloseTo(v, 4));
    expect(() => helperToOrientedBox({ position, rotation, scaling: [1, 0, 1] })).toThrow(/positive/);
  });

  it('turns a gizmo move, turn and scale about a pivot into the scene similarity Babylon shows', () => {
    const pivot: Vec3 = [u(-1, 1), u(-1, 1), u(-1, 1)];
    const moved: Vec3 = [pivot[0] + u(-1, 1), pivot[1] + u(-1, 1), pivot[2] + u(-1, 1)];
    const rotation = randomQuat();
    const s = u(0.5, 2);
    const similarity = gizmoToSimilarity(pivot, { position: moved, rotation, scaling: [s, s, s] });
    // Babylon: node at `moved` (rotation, scaling) over a child offset by -pivot, over engineWorld (F).
    const node = Matrix.Compose(new Vector3(s, s, s), new Quaternion(...rotation), new Vector3(...moved));
    for (let k = 0; k < 10; k++) {
      const e: Vec3 = [u(-3, 3), u(-3, 3), u(-3, 3)];
      const b = F(e);
      const shown = Vector3.TransformCoordinates(new Vector3(b[0] - pivot[0], b[1] - pivot[1], b[2] - pivot[2]), node);
      const expected = F([shown.x, shown.y, shown.z]);
      applySimilarity(similarity, e).forEach((v, a) => expect(v, `seed ${seed}`).toBeCloseTo(expected[a], 4));
    }
    expect(() => gizmoToSimilarity(pivot, { position: moved, rotation, scaling: [1, 2, 1] })).toThrow(/uniform/);
  });
});
