/**
 * Our SIFT beside COLMAP 3.8's on the same images (docs/sfm.md "Against COLMAP"): keypoint
 * repeatability (a keypoint of one set with one of the other within 1.5 px and a scale ratio
 * within 1.25x, both ways; median orientation difference of those), and matches per pair (ours
 * after the ratio and mutual tests; COLMAP's `matches` table, the same stage, and its verified
 * inliers). Reads COLMAP's database.db with the sqlite3 CLI (no npm dependency).
 *   colmap feature_extractor --database_path DB --image_path DIR --SiftExtraction.use_gpu 0 && \
 *   colmap exhaustive_matcher --database_path DB --SiftMatching.use_gpu 0
 *   (bundle like bench/sfm-features.ts) node out/tmp/sfm-colmap-compare.mjs DB DIR [first-octave=-1]
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { openGpu } from '../main/engine/gpu/context.js';
import { SiftExtractor, type Features } from '../main/engine/sfm/features.js';
import { loadGreyImage } from '../main/engine/sfm/grey-image.js';
import { FeatureMatcher } from '../main/engine/sfm/match.js';

const [db, dir, octaveArg] = process.argv.slice(2);
if (!db || !dir) {
  console.error('usage: sfm-colmap-compare DB IMAGE_DIR [first-octave 0|-1]');
  process.exit(3);
}
const firstOctave = (Number(octaveArg ?? -1) === 0 ? 0 : -1) as 0 | -1;
const sql = (query: string) => execFileSync('sqlite3', ['-separator', '|', db, query], { encoding: 'utf8', maxBuffer: 1 << 28 }).trim().split('\n').filter(Boolean);

const images = sql('select image_id, name from images order by image_id').map((row) => {
  const [id, name] = row.split('|');
  return { id: Number(id), name };
});
function colmapKeypoints(id: number): Float32Array {
  const [row] = sql(`select rows, cols, hex(data) from keypoints where image_id = ${id}`);
  const [rows, cols, hex] = row.split('|');
  const raw = new Float32Array(Uint8Array.from(Buffer.from(hex, 'hex')).buffer);
  const out = new Float32Array(Number(rows) * 4);
  for (let i = 0; i < Number(rows); i++) {
    const [x, y, a11, , a21] = raw.subarray(i * Number(cols), (i + 1) * Number(cols));
    out.set([x, y, Math.hypot(a11, a21), Math.atan2(a21, a11)], 4 * i);
  }
  return out;
}

/** Fraction of `a`'s keypoints with one of `b`'s close by, and their median orientation difference (radians). */
function repeatability(a: Float32Array, b: Float32Array): { fraction: number; orientationMedian: number } {
  const cell = 4;
  const grid = new Map<string, number[]>();
  for (let j = 0; j < b.length / 4; j++) {
    const k = `${Math.floor(b[4 * j] / cell)},${Math.floor(b[4 * j + 1] / cell)}`;
    grid.set(k, [...(grid.get(k) ?? []), j]);
  }
  let hits = 0;
  const angles: number[] = [];
  for (let i = 0; i < a.length / 4; i++) {
    const [x, y, s, t] = a.subarray(4 * i, 4 * i + 4);
    let best = -1;
    let bestD = 1.5;
    for (let gx = -1; gx <= 1; gx++)
      for (let gy = -1; gy <= 1; gy++)
        for (const j of grid.get(`${Math.floor(x / cell) + gx},${Math.floor(y / cell) + gy}`) ?? []) {
          const d = Math.hypot(b[4 * j] - x, b[4 * j + 1] - y);
          const ratio = b[4 * j + 2] / s;
          if (d < bestD && ratio < 1.25 && ratio > 0.8) [best, bestD] = [j, d];
        }
    if (best < 0) continue;
    hits++;
    const d = Math.abs(b[4 * best + 3] - t) % (2 * Math.PI);
    angles.push(Math.min(d, 2 * Math.PI - d));
  }
  angles.sort((p, q) => p - q);
  return { fraction: hits / (a.length / 4), orientationMedian: angles[Math.floor(angles.length / 2)] ?? NaN };
}

const ctx = await openGpu();
const extractor = await SiftExtractor.create(ctx, { firstOctave });
const ours: Features[] = [];
const rows: Record<string, unknown>[] = [];
for (const image of images) {
  const features = await extractor.extract(await loadGreyImage(path.join(dir, image.name)));
  ours.push(features);
  const theirs = colmapKeypoints(image.id);
  const oursInTheirs = repeatability(features.keypoints, theirs);
  const theirsInOurs = repeatability(theirs, features.keypoints);
  rows.push({ image: image.name, ours: features.keypoints.length / 4, colmap: theirs.length / 4, oursFoundInColmap: +oursInTheirs.fraction.toFixed(3), colmapFoundInOurs: +theirsInOurs.fraction.toFixed(3), orientationMedianRad: +oursInTheirs.orientationMedian.toFixed(4) });
}
extractor.destroy();
const matcher = await FeatureMatcher.create(ctx);
const uploaded = ours.map((f) => matcher.upload(f.descriptors));
const pairs: Record<string, unknown>[] = [];
for (let i = 0; i < images.length; i++)
  for (let j = i + 1; j < images.length; j++) {
    const [a, b] = [images[i].id, images[j].id].sort((p, q) => p - q);
    const pairId = BigInt(a) * 2147483647n + BigInt(b);
    const colmapMatches = Number(sql(`select rows from matches where pair_id = ${pairId}`)[0] ?? 0);
    const colmapInliers = Number(sql(`select rows from two_view_geometries where pair_id = ${pairId}`)[0] ?? 0);
    const m = await matcher.match(uploaded[i], uploaded[j]);
    pairs.push({ pair: `${images[i].name} ${images[j].name}`, ours: m.length / 2, colmapMatches, colmapInliers });
  }
ctx.destroy();
console.log(JSON.stringify({ firstOctave, images: rows, pairs }, null, 2));
