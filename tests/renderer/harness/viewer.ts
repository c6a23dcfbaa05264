/**
 * Harness page for the Babylon viewer: one SplatViewer on a 480 x 360 canvas (4:3, like the test
 * cameras) and `window.harness` to load scenes into it. `frameTest` builds the scene that proves
 * the engine -> Babylon frame change: a red blob that one OpenCV camera sees in the upper left of its
 * image and a green blob it sees in the lower right; looking through that camera must show them there.
 */
import { lookAt, type PinholeCamera } from '../../../shared/scene/camera.js';
import { generateDemoScene } from '../../../renderer/src/viewer/demo-scene.js';
import { cameraAxes, cameraCenter, projectToPixel, type Vec3 } from '../../../renderer/src/viewer/opencv-frame.js';
import { EditSession } from '../../../renderer/src/viewer/edit/edit-session.js';
import { createSplatBuffer, writeSplat } from '../../../renderer/src/viewer/splat-layout.js';
import { SplatViewer } from '../../../renderer/src/viewer/splat-viewer.js';

const canvas = document.getElementById('view') as HTMLCanvasElement;
const viewer = new SplatViewer(canvas, { minUpdateIntervalMs: 0, background: [0, 0, 0] });

/** The world point camera `cam` sees at pixel (u, v), `depth` in front of it. */
function unproject(cam: PinholeCamera, u: number, v: number, depth: number): Vec3 {
  const c = cameraCenter(cam);
  const { right, down, forward } = cameraAxes(cam);
  const x = ((u - cam.cx) / cam.fx) * depth;
  const y = ((v - cam.cy) / cam.fy) * depth;
  return [0, 1, 2].map((a) => c[a] + right[a] * x + down[a] * y + forward[a] * depth) as Vec3;
}

function blobs(centres: { at: Vec3; rgb: [number, number, number] }[], perBlob = 300) {
  const views = createSplatBuffer(centres.length * perBlob);
  let i = 0;
  let seed = 1;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5;
  for (const { at, rgb } of centres) {
    for (let k = 0; k < perBlob; k++) {
      writeSplat(views, i++, { position: [at[0] + random() * 0.3, at[1] + random() * 0.3, at[2] + random() * 0.3], scale: [0.06, 0.06, 0.06], rgba: [...rgb, 255], quaternion: [1, 0, 0, 0] });
    }
  }
  return views;
}

Object.assign(window, {
  harness: {
    stats: () => viewer.stats(),
    async loadDemo() {
      const demo = generateDemoScene();
      viewer.setCameras(demo.cameras);
      viewer.setPoints(demo.points.positions, demo.points.colors, demo.points.count);
      await viewer.setSplats(demo.splats, demo.count);
      return viewer.stats();
    },
    /** Camera somewhere off-axis (so a mirrored or flipped frame cannot pass by symmetry). */
    async frameTest() {
      const cam: PinholeCamera = { width: 640, height: 480, fx: 600, fy: 600, cx: 320, cy: 240, worldToCamera: lookAt([2.5, -1.5, -6], [0.2, 0.3, 0.4], [0.3, -1, 0.2]) };
      const red = unproject(cam, 160, 120, 6); // upper left of the image
      const green = unproject(cam, 480, 360, 6); // lower right
      const views = blobs([
        { at: red, rgb: [255, 0, 0] },
        { at: green, rgb: [0, 255, 0] },
      ]);
      viewer.setCameras([cam]);
      viewer.setFrustumsVisible(false);
      await viewer.setSplats(views.buffer, views.count);
      viewer.lookThrough(0);
      return viewer.stats();
    },
    /**
     * Picking a frustum: camera 1 stands where camera 0 sees the pixel (480, 120) of its 640 x 480
     * image, 5 units away. Looking through camera 0, `cameraAt` on that spot of the 480 x 360
     * canvas must name camera 1; an empty spot names none.
     */
    async pickTest() {
      const cam: PinholeCamera = { width: 640, height: 480, fx: 600, fy: 600, cx: 320, cy: 240, worldToCamera: lookAt([2.5, -1.5, -6], [0.2, 0.3, 0.4], [0.3, -1, 0.2]) };
      const other = unproject(cam, 480, 120, 5);
      const second: PinholeCamera = { ...cam, worldToCamera: lookAt(other, [0.2, 0.3, 0.4], [0.3, -1, 0.2]) };
      const views = blobs([{ at: unproject(cam, 320, 240, 6), rgb: [255, 255, 255] }]);
      viewer.setCameras([cam, second]);
      viewer.setFrustumsVisible(true);
      await viewer.setSplats(views.buffer, views.count);
      viewer.lookThrough(0);
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const scale = canvas.clientWidth / 640;
      return { hit: viewer.cameraAt(480 * scale, 120 * scale) ?? null, near: viewer.cameraAt(480 * scale + 10, 120 * scale - 10) ?? null, miss: viewer.cameraAt(60 * scale, 400 * scale) ?? null, hidden: (viewer.setFrustumsVisible(false), viewer.cameraAt(480 * scale, 120 * scale) ?? null) };
    },
    /**
     * Edit mode's view camera: in the orbit view (not a training camera), where `viewCamera()`
     * projects the red and the green blob, as fractions of the canvas; the test reads the pixels there.
     */
    async viewCameraTest() {
      const cam: PinholeCamera = { width: 640, height: 480, fx: 600, fy: 600, cx: 320, cy: 240, worldToCamera: lookAt([2.5, -1.5, -6], [0.2, 0.3, 0.4], [0.3, -1, 0.2]) };
      const red = unproject(cam, 160, 120, 6);
      const green = unproject(cam, 480, 360, 6);
      const views = blobs([
        { at: red, rgb: [255, 0, 0] },
        { at: green, rgb: [0, 255, 0] },
      ]);
      viewer.setCameras([cam]);
      viewer.setFrustumsVisible(false);
      await viewer.setSplats(views.buffer, views.count);
      viewer.setMode('orbit');
      viewer.fitToScene();
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const view = viewer.viewCamera();
      const at = (p: Vec3) => {
        const px = projectToPixel(view, p)!;
        return [px[0] / view.width, px[1] / view.height];
      };
      const session = new EditSession(viewer);
      session.gizmos.showHelper('box');
      const box = session.gizmos.helperShape();
      const centre = session.sceneCentre();
      session.dispose();
      return { red: at(red), green: at(green), size: [view.width, view.height], box, centre };
    },
    /** Many setSplats calls at once: all resolve, the last data wins, fewer updates are applied. */
    async burst(n: number) {
      const promises: Promise<void>[] = [];
      for (let k = 1; k <= n; k++) {
        const views = blobs([{ at: [0, 0, 0], rgb: [255, 255, 255] }], 10 * k);
        promises.push(viewer.setSplats(views.buffer, views.count));
      }
      await Promise.all(promises);
      return viewer.stats();
    },
    /**
     * The view leaving while splats go up (the Viewer unmounted mid-update): `rounds` viewers of
     * their own, each disposed at once or a few milliseconds into an update (half of them into their
     * second update, the first already shown), then left alone for a while. What the page reports as
     * uncaught meanwhile comes back, with its stack.
     */
    async disposeMidUpdate(rounds: number) {
      const errors: string[] = [];
      const onError = (event: ErrorEvent) => errors.push(`${event.message}\n${(event.error as Error | undefined)?.stack ?? ''}`);
      const onRejection = (event: PromiseRejectionEvent) => errors.push(`unhandled rejection: ${(event.reason as Error | undefined)?.stack ?? String(event.reason)}`);
      window.addEventListener('error', onError);
      window.addEventListener('unhandledrejection', onRejection);
      const demo = generateDemoScene();
      const settled: string[] = [];
      for (let round = 0; round < rounds; round++) {
        const own = document.createElement('canvas');
        own.width = 160;
        own.height = 120;
        document.body.append(own);
        const view = new SplatViewer(own, { minUpdateIntervalMs: 0 });
        view.setCameras(demo.cameras);
        if (Math.floor(round / 4) % 2 === 1) await view.setSplats(demo.splats.slice(0), demo.count);
        const update = view.setSplats(demo.splats.slice(0), demo.count).then(() => 'resolved', (error: unknown) => `rejected: ${(error as Error).message}`);
        // at once (before Babylon's first step of the update), after a task, or a few milliseconds in
        const delayMs = [undefined, 0, 5, 20][round % 4];
        if (delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, delayMs));
        view.dispose();
        own.remove();
        settled.push(await Promise.race([update, new Promise<string>((resolve) => setTimeout(() => resolve('pending'), 3000))]));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
      return { errors, settled };
    },
    setMode: (mode: 'orbit' | 'fly') => (viewer.setMode(mode), viewer.stats()),
    fit: () => (viewer.fitToScene(), viewer.stats()),
    badBuffer() {
      try {
        void viewer.setSplats(new ArrayBuffer(40), 2);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    },
  },
});
document.body.dataset.ready = 'true';
