#!/usr/bin/env node
/**
 * A rendered "video" with ground-truth poses, for issue 16's 150-frame timing and a pose-accuracy
 * check of our SfM on a clip (docs/sfm.md, "Accuracy on data with ground truth"):
 *
 *   node scripts/make-render-video.mjs [--out /work/capdata/render150] [--frames 150] [--size 640]
 *        [--mesh ../shared/data/meshes/stanford_bunny/stanford-bunny.obj] [--tools ../shared/tools]
 *
 * The team's renderer (../shared/tools/render-views.mjs) places cameras on a Fibonacci spiral,
 * whose consecutive views jump by the golden angle: no video. So it is run once for its normalised
 * mesh (gt_mesh.ply: the object scaled into the unit sphere, y up), and the views are rendered here
 * through the tool's own worker (lib/render-worker.mjs) along a smooth orbit: one lap around the
 * object, the elevation swinging 15-35 degrees twice, at 3 units (the tool's default radius) with
 * its 40-degree field of view. The colour is the tool's procedural pattern (the bunny has no
 * texture), composited over mid grey, encoded with ffmpeg as H.264 (yuv420p, crf 16, 30 fps).
 *
 * Written: OUT/render150.mp4, OUT/transforms.json (NeRF layout: camera_angle_x, camera-to-world in
 * OpenGL axes; file_path "frames/frame_000000" ..., named as `bench sfm` names a clip's frames, so
 * `bench sfm OUT/render150.mp4 --frames 150 --focal F --reference OUT/transforms.json` pairs them
 * by name), OUT/frames/
 * (the RGBA renders), OUT/base/ (the tool's dataset: gt_mesh.ply, meta.json). Deterministic: the
 * same options give the same frames (the tool's renders are, for any job count).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: '/work/capdata/render150' },
    frames: { type: 'string', default: '150' },
    size: { type: 'string', default: '640' },
    mesh: { type: 'string', default: '../shared/data/meshes/stanford_bunny/stanford-bunny.obj' },
    tools: { type: 'string', default: '../shared/tools' },
    jobs: { type: 'string', default: '2' },
  },
});
const frames = Number(values.frames);
const size = Number(values.size);
const jobs = Number(values.jobs);
for (const [flag, value] of [['frames', frames], ['size', size], ['jobs', jobs]]) {
  if (!Number.isInteger(value) || value < 1) {
    console.error(`make-render-video.mjs: --${flag} must be a positive integer (got ${values[flag]})`);
    process.exit(3);
  }
}
const out = path.resolve(values.out);
const tools = path.resolve(values.tools);
const RADIUS = 3;
const FOV_DEG = 40;
const FPS = 30;
const BACKGROUND = '0x808080';

// 1. The tool's normalised mesh (one tiny view rendered: only gt_mesh.ply and meta.json are used).
const base = path.join(out, 'base');
execFileSync(process.execPath, [path.join(tools, 'render-views.mjs'), path.resolve(values.mesh), '--out', base, '--train', '1', '--test', '0', '--size', '8', '--quiet'], { stdio: 'inherit' });
const { loadMesh } = await import(pathToFileURL(path.join(tools, 'lib/mesh-io.mjs')).href);
const { lookAt } = await import(pathToFileURL(path.join(tools, 'lib/cameras.mjs')).href);
const mesh = loadMesh(path.join(base, 'gt_mesh.ply'), { loadTextures: false });

// 2. The orbit: frame k at azimuth 360 k / n, elevation 25 + 10 sin(4 pi k / n) degrees.
const poses = Array.from({ length: frames }, (_, k) => {
  const azimuth = (2 * Math.PI * k) / frames;
  const elevation = ((25 + 10 * Math.sin((4 * Math.PI * k) / frames)) * Math.PI) / 180;
  const eye = [RADIUS * Math.cos(elevation) * Math.cos(azimuth), RADIUS * Math.sin(elevation), RADIUS * Math.cos(elevation) * Math.sin(azimuth)];
  return lookAt(eye);
});
const frameDir = path.join(out, 'frames');
rmSync(frameDir, { recursive: true, force: true });
mkdirSync(frameDir, { recursive: true });
const name = (k) => `frame_${String(k).padStart(6, '0')}`;
const views = poses.map((c2w, k) => ({ file: path.join(frameDir, `${name(k)}.png`), c2w }));
const render = { size, fovX: (FOV_DEG * Math.PI) / 180, supersample: 4, ssaa: false, color: 'auto', seed: 1 };
const started = performance.now();
const workerUrl = pathToFileURL(path.join(tools, 'lib/render-worker.mjs'));
let done = 0;
await Promise.all(
  Array.from({ length: Math.min(jobs, frames) }, (_, w) => new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl, { workerData: { task: 'render-views', mesh, render, views: views.filter((_, k) => k % jobs === w) } });
    worker.on('message', () => {
      if (++done % 25 === 0) console.error(`make-render-video: rendered ${done}/${frames} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    });
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`make-render-video.mjs: render worker exited with ${code}`))));
  })),
);

// 3. H.264 over mid grey (an opaque video; the alpha is coverage, so the edges blend).
const video = path.join(out, `render${frames}.mp4`);
execFileSync('ffmpeg', [
  '-nostdin', '-hide_banner', '-loglevel', 'error', '-y',
  '-framerate', String(FPS), '-i', path.join(frameDir, 'frame_%06d.png'),
  '-f', 'lavfi', '-i', `color=c=${BACKGROUND}:s=${size}x${size}:r=${FPS}`,
  '-filter_complex', '[1:v][0:v]overlay=shortest=1,format=yuv420p',
  '-frames:v', String(frames), '-c:v', 'libx264', '-crf', '16', '-preset', 'medium', '-g', String(FPS), video,
], { stdio: 'inherit' });

// 4. The clip's frames decoded back, as bench sfm takes them from a clip (JPEG at ffmpeg's q 2):
// a folder for machines without ffmpeg (the GPU machine), paired by the same names.
const decoded = path.join(out, 'video-frames');
rmSync(decoded, { recursive: true, force: true });
mkdirSync(decoded, { recursive: true });
execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', video, '-start_number', '0', '-q:v', '2', path.join(decoded, 'frame_%06d.jpg')], { stdio: 'inherit' });

// 5. Ground truth, pairing with bench sfm's frame names.
// file_path names the RGBA render (readers check the file exists); pairing is by the bare name
const transforms = { camera_angle_x: render.fovX, frames: poses.map((c2w, k) => ({ file_path: `frames/${name(k)}`, transform_matrix: c2w })) };
writeFileSync(path.join(out, 'transforms.json'), JSON.stringify(transforms, null, 1));
console.error(`make-render-video: ${video} (${frames} frames, ${size}x${size}, f = ${(size / 2 / Math.tan(render.fovX / 2)).toFixed(2)} px), transforms.json; ${((performance.now() - started) / 1000).toFixed(1)} s`);
