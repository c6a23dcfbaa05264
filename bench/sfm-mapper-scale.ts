/**
 * The global mapper's wall time at a video's scale (issue 16: 150 frames posed in under 30 s):
 * a synthetic circle of `cameras` (tests/main/engine/sfm/global/global-scenes.ts), each paired
 * with its `window` neighbours either side as a clip's sequential pairs are, 0.5 px noise, no wrong
 * pairs (their random matches would ignore the cone); per stage (MappingStats.stageMs), single-threaded, this machine. The scene's points have
 * no surface and would be seen by every camera of the circle (tracks 150 long); a point here is
 * kept in a pair only where both cameras see it within `coneDeg` of its outward normal (from the
 * cloud's centre), as a surface point leaves view: tracks of a few dozen frames, as in a clip.
 *   npx esbuild bench/sfm-mapper-scale.ts --bundle --platform=node --format=esm --outfile=out/tmp/sfm-mapper-scale.mjs
 *   && node out/tmp/sfm-mapper-scale.mjs [cameras] [window] [points]
 */
import { globalMapping } from '../main/engine/sfm/global/global-mapper.js';
import { syntheticScene } from '../tests/main/engine/sfm/global/global-scenes.js';

const [cameras = 150, window = 10, points = 4000, coneDeg = 40] = process.argv.slice(2).map(Number);
const scene = syntheticScene(1, { cameras, points, layout: 'circle', noisePx: 0.5, wrongEdgeRatio: 0, poseNoiseDeg: 0.1, minShared: 30 });
const gap = (a: number, b: number) => Math.min(Math.abs(a - b), cameras - Math.abs(a - b));
const facing = (image: number, keypoint: number): boolean => {
  const p = scene.points[scene.pointOf[image][keypoint]];
  const c = scene.centres[image];
  const view = [c[0] - p[0], c[1] - p[1], c[2] - p[2]];
  return (p[0] * view[0] + p[1] * view[1] + p[2] * view[2]) / (Math.hypot(...p) * Math.hypot(...view)) > Math.cos((coneDeg * Math.PI) / 180);
};
const verified = scene.verified
  .filter((v, k) => gap(v.pair[0], v.pair[1]) <= window && !scene.wrong.has(k))
  .map((v) => {
    const [a, b] = v.pair;
    const kept: number[] = [];
    for (let m = 0; m < v.inlierMatches.length; m += 2) if (facing(a, v.inlierMatches[m]) && facing(b, v.inlierMatches[m + 1])) kept.push(v.inlierMatches[m], v.inlierMatches[m + 1]);
    const n = kept.length / 2;
    return { ...v, inlierMatches: Uint32Array.from(kept), geometry: { ...v.geometry, inliers: Uint32Array.from({ length: n }, (_, k) => k), inlierCounts: { essential: n, fundamental: n, homography: n >> 2 } } };
  });
const matches = verified.reduce((s, v) => s + v.inlierMatches.length / 2, 0);
const cpuMs = (): number => (process.cpuUsage().user + process.cpuUsage().system) / 1000;
const started = performance.now();
const startedCpu = cpuMs();
const result = globalMapping({ imageCount: cameras, verified, keypoints: scene.keypoints, cameras: scene.cameras });
const ms = performance.now() - started;
const cpu = cpuMs() - startedCpu;
const registered = result.poses.filter(Boolean).length;
const stages = Object.entries(result.stats.stageMs).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
console.log(`${cameras} cameras, ${verified.length} pairs (window ${window}), ${matches} inlier matches: ${registered} registered, ${result.points.length} points, ${ms.toFixed(0)} ms wall, ${cpu.toFixed(0)} CPU ms (wall per stage: ${stages}); positioning ${JSON.stringify(result.stats.positioningIterations)}`);
