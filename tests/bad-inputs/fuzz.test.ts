/**
 * Bounded fuzzing of every parser the product has (tests/main/engine/dataset/fuzz.test.ts covers
 * the COLMAP binaries, PNG and whole dataset loads): random mutations of valid files are either
 * read or refused with a clean error naming the file, never another exception, never a hang.
 * The seed is printed on failure.
 */
import createSpzModule from '@adobe/spz';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCameraFile } from '../../main/cli/commands/render.js';
import { parseCamerasText, parseImagesText, parsePoints3DText } from '../../main/engine/dataset/colmap-text.js';
import { parsePlyPoints } from '../../main/engine/dataset/ply-points.js';
import { loadDataset } from '../../main/engine/dataset/dataset.js';
import { decodeImage } from '../../main/engine/formats/images.js';
import { parsePly, serializePly } from '../../main/engine/formats/ply.js';
import { parseSplat, serializeSplat } from '../../main/engine/formats/splat.js';
import { parseGlb, serializeGlb } from '../../main/engine/formats/gltf-splats.js';
import { parseSog, serializeSog } from '../../main/engine/formats/sog.js';
import { parseSpz, serializeSpz } from '../../main/engine/formats/spz.js';
import { JobJournal } from '../../main/engine/jobs/journal.js';
import { Project } from '../../main/engine/project/project.js';
import { checkpointProblem, checkpointSplats, readCheckpoint, writeCheckpoint } from '../../main/engine/train/checkpoint.js';
import { ArgonautError } from '../../shared/rpc/errors.js';
import { emptySplats } from '../../shared/scene/splats.js';
import { camerasText, colmapImage, imagesText, points3DText } from '../../main/engine/dataset/colmap-write.js';
import { tempDir } from '../helpers/datasets.js';
import { fuzz, mutate } from '../helpers/fuzz.js';
import { encodeJpeg } from '../helpers/images.js';
import { validManifest } from '../helpers/projects.js';
import { freshSeed, rng } from '../helpers/random.js';
import { PROJECT_VERSION } from '../../shared/project/manifest.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir('fuzz');
});

function splats(count: number, degree: number, seed: number) {
  const random = rng(seed);
  const s = emptySplats(count, degree);
  for (const key of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) for (let i = 0; i < s[key].length; i++) s[key][i] = random() * 2 - 1;
  return s;
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

describe('fuzzing every parser (bounded, clean errors only)', () => {
  it('3DGS PLY (binary and ascii)', async () => {
    const seed = freshSeed();
    const binary = serializePly(splats(6, 1, seed));
    const r1 = await fuzz(seed, binary, (b) => {
      const s = parsePly(b, 'f.ply');
      expect([...s.means, ...s.sh].every(Number.isFinite), `seed ${seed}`).toBe(true);
    });
    const ascii = Buffer.from(['ply', 'format ascii 1.0', 'element vertex 2', ...['x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3'].map((p) => `property float ${p}`), 'end_header', '0 0 0 0.1 0.2 0.3 1 -3 -3 -3 1 0 0 0', '1 2 3 0.1 0.2 0.3 1 -3 -3 -3 1 0 0 0', ''].join('\n'));
    const r2 = await fuzz(seed + 1, ascii, (b) => parsePly(b, 'a.ply'));
    expect(r1.runs + r2.runs).toBeGreaterThanOrEqual(200);
    expect(r1.rejected).toBeGreaterThan(0);
  });

  it('SPZ (version 4 header, TOC and zstd streams; version 2 gzip payload)', async () => {
    const seed = freshSeed();
    const r1 = await fuzz(seed, (await serializeSpz(splats(5, 2, seed))).bytes, (b) => parseSpz(b, 'f.spz'));
    // Mutations behind the gzip layer of a legacy file (the library's own v2) reach the payload checks.
    const library = await createSpzModule();
    const s = splats(5, 1, seed);
    const K = 4;
    const rotations = new Float32Array(20).fill(0.5);
    const colors = Float32Array.from({ length: 15 }, (_, i) => s.sh[Math.floor(i / 3) * K * 3 + (i % 3)]);
    const raw = gunzipSync(library.saveSpzToBuffer({ numPoints: 5, shDegree: 1, antialiased: false, extensions: [], positions: s.means, scales: s.logScales, rotations, alphas: s.opacityLogits, colors, sh: new Float32Array(45) }, { version: 2, from: library.CoordinateSystem.RDF, sh1Bits: 8, shRestBits: 8 }));
    const random = rng(seed);
    let runs = 0;
    for (; runs < 300; runs++) {
      try {
        const back = parseSpz(gzipSync(mutate(raw, random)), 'g.spz');
        expect([...back.means, ...back.quats].every(Number.isFinite), `seed ${seed}`).toBe(true);
      } catch (error) {
        if (!(error instanceof ArgonautError) || error.code !== 'bad_input') throw new Error(`seed ${seed}, run ${runs}: ${String(error)}`);
      }
    }
    expect(r1.rejected).toBeGreaterThan(0);
  });

  it('glTF splats (GLB chunks, JSON, accessors)', async () => {
    const seed = freshSeed();
    const r = await fuzz(seed, serializeGlb(splats(4, 1, seed)), (b) => {
      const back = parseGlb(b, 'f.glb');
      expect([...back.means, ...back.logScales, ...back.sh].every(Number.isFinite), `seed ${seed}`).toBe(true);
    });
    expect(r.rejected).toBeGreaterThan(0);
  });

  it('SOG bundles (zip, meta.json, WebP textures)', async () => {
    const seed = freshSeed();
    const r = await fuzz(seed, await serializeSog(splats(4, 1, seed)), async (b) => {
      const back = await parseSog(b, 'f.sog');
      expect([...back.means, ...back.quats].every(Number.isFinite), `seed ${seed}`).toBe(true);
    }, { iterations: 200 });
    expect(r.rejected).toBeGreaterThan(0);
  });

  it('.splat records', async () => {
    const seed = freshSeed();
    const r = await fuzz(seed, serializeSplat(splats(4, 0, seed)), (b) => parseSplat(b, 'f.splat'));
    expect(r.rejected).toBeGreaterThan(0);
  });

  it('checkpoints (full read, header-only completeness check, splats from the blobs)', async () => {
    const seed = freshSeed();
    const s = splats(3, 1, seed);
    const file = path.join(dir, 'valid.ckpt');
    const blob = (a: Float32Array) => new Uint8Array(a.buffer.slice(0));
    await writeCheckpoint(file, { step: 5, splatCount: 3, shDegree: 1, random: 9, order: [0, 1], orderPosition: 1, nonFiniteSkipped: 0, data: { name: 'x', views: 2, train: 2 }, config: {} }, [
      { name: 'means.param', data: blob(s.means) }, { name: 'logScales.param', data: blob(s.logScales) }, { name: 'quats.param', data: blob(s.quats) },
      { name: 'opacityLogits.param', data: blob(s.opacityLogits) }, { name: 'sh.param', data: blob(s.sh) },
    ]);
    const valid = readFileSync(file);
    const target = path.join(dir, 'mutated.ckpt');
    const r = await fuzz(seed, valid, async (b) => {
      writeFileSync(target, b);
      const problem = await checkpointProblem(target); // never throws: a string or undefined
      expect(typeof problem === 'string' || problem === undefined).toBe(true);
      checkpointSplats(await readCheckpoint(target), target);
    }, { iterations: 300 });
    expect(r.rejected).toBeGreaterThan(0);
  });

  it('.argo project files (bytes and JSON values)', async () => {
    const seed = freshSeed();
    const valid = Buffer.from(JSON.stringify(validManifest({ runs: [{ id: 'run-001', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', params: { 'train.iterations': 10 }, status: 'finished', step: 10, total: 10, resumes: [3], checkpointsDir: 'c', metrics: [{ step: 1, loss: 0.5 }], evaluations: [], outputs: { splats: 's.ply', splatCount: 2 } }] }), null, 2));
    const file = path.join(dir, 'fuzz.argo');
    const r = await fuzz(seed, valid, async (b) => {
      writeFileSync(file, b);
      const project = await Project.open(file);
      expect(project.manifest.version).toBe(PROJECT_VERSION);
    }, { iterations: 300 });
    expect(r.rejected).toBeGreaterThan(0);
    // Structurally valid JSON with wrong values: replace random leaves.
    const random = rng(seed);
    const leaves: unknown[] = [null, -1, 1e309, 'x', true, [], {}, 2 ** 53, '2026-13-45', '../..', '\u0000'];
    for (let i = 0; i < 200; i++) {
      const m = JSON.parse(valid.toString()) as Record<string, unknown>;
      const keys = Object.keys(m);
      const key = keys[Math.floor(random() * keys.length)];
      m[key] = leaves[Math.floor(random() * leaves.length)];
      writeFileSync(file, JSON.stringify(m));
      await Project.open(file).catch((error: unknown) => {
        if (!(error instanceof ArgonautError) || error.code !== 'bad_input' || !error.message.startsWith(file)) throw new Error(`seed ${seed}: ${key}: ${String(error)}`);
      });
    }
  });

  it('camera files for render', async () => {
    const seed = freshSeed();
    const valid = Buffer.from(JSON.stringify({ width: 32, height: 24, fx: 30, fy: 30, cx: 16, cy: 12, world_to_camera: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 4], [0, 0, 0, 1]] }));
    const file = path.join(dir, 'cam.json');
    await fuzz(seed, valid, async (b) => {
      writeFileSync(file, b);
      const camera = await readCameraFile(file);
      expect(camera.worldToCamera.every(Number.isFinite)).toBe(true);
    });
  });

  it('COLMAP text models', async () => {
    const seed = freshSeed();
    const cameras = [{ id: 1, model: 'PINHOLE', width: 64, height: 48, params: [50, 50, 32, 24], source: '' }, { id: 2, model: 'OPENCV', width: 64, height: 48, params: [50, 50, 32, 24, 0.01, 0, 0, 0], source: '' }];
    const camerasMap = new Map(cameras.map((c) => [c.id, c]));
    const images = [1, 2, 3].map((i) => colmapImage(i, `f${i}.png`, (i % 2) + 1, [1, 0.1, 0, 0], [i, 0, 4]));
    const points = { ids: Float64Array.from([1, 2]), positions: Float64Array.from([0, 0, 0, 1, 1, 1]), colors: Uint8Array.from([1, 2, 3, 4, 5, 6]), errors: Float64Array.from([0.5, 0.25]) };
    await fuzz(seed, Buffer.from(camerasText(cameras)), (b) => parseCamerasText(text(b), 'cameras.txt'));
    await fuzz(seed + 1, Buffer.from(imagesText(images)), (b) => parseImagesText(text(b), 'images.txt', camerasMap));
    await fuzz(seed + 2, Buffer.from(points3DText(points)), (b) => parsePoints3DText(text(b), 'points3D.txt'));
  });

  it('point-cloud PLY (SfM points)', async () => {
    const seed = freshSeed();
    const valid = Buffer.concat([Buffer.from('ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n'), Buffer.from(new Float32Array([0, 1, 2]).buffer), Buffer.from([1, 2, 3]), Buffer.from(new Float32Array([3, 4, 5]).buffer), Buffer.from([4, 5, 6])]);
    expect(parsePlyPoints(valid, 'p.ply').positions.length).toBe(6);
    await fuzz(seed, valid, (b) => parsePlyPoints(b, 'p.ply'));
  });

  it('JPEG images', async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const valid = encodeJpeg(16, 12, Uint8Array.from({ length: 16 * 12 * 4 }, () => Math.floor(random() * 256)));
    await fuzz(seed, valid, (b) => decodeImage(b, 'f.jpg'), { iterations: 300 });
  });

  it('transforms.json datasets', async () => {
    const seed = freshSeed();
    const root = path.join(dir, 'transforms');
    mkdirSync(path.join(root, 'images'), { recursive: true });
    const { randomPng } = await import('../helpers/datasets.js');
    writeFileSync(path.join(root, 'images', 'a.png'), randomPng(8, 6, rng(seed)));
    const valid = Buffer.from(JSON.stringify({ fl_x: 10, fl_y: 10, cx: 4, cy: 3, w: 8, h: 6, k1: 0.01, frames: [{ file_path: 'images/a.png', transform_matrix: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 3], [0, 0, 0, 1]] }] }));
    const file = path.join(root, 'transforms.json');
    await fuzz(seed, valid, async (b) => {
      writeFileSync(file, b);
      await loadDataset(root);
    }, { iterations: 200, codes: ['bad_input', 'not_found'] });
  });

  it('the job journal never fails the host: damaged journals read as empty, with a warning', async () => {
    const seed = freshSeed();
    const journal = new JobJournal(path.join(dir, 'journal'));
    await journal.write([{ job: 'job-1', source: { kind: 'sample' }, project: '/p.argo', state: 'running', step: 3, total: 10, params: {}, newRun: false, recoveries: 0, createdAt: 'a', updatedAt: 'b' }]);
    const valid = readFileSync(journal.file);
    const random = rng(seed);
    for (let i = 0; i < 200; i++) {
      writeFileSync(journal.file, mutate(valid, random));
      const warnings: string[] = [];
      const jobs = await journal.read((m) => warnings.push(m));
      // Either it still reads (no warning), or it is empty with exactly one warning naming the file.
      expect(warnings.length === 0 || (jobs.length === 0 && warnings.length === 1 && warnings[0].startsWith(journal.file)), `seed ${seed}`).toBe(true);
      for (const j of jobs) expect(typeof j.job).toBe('string');
    }
  });
});
