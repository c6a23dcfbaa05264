/**
 * The bad-input suite's cases: each builds one malformed input in a fresh folder (names with
 * spaces and non-ASCII on purpose) and says which CLI command reads it, which file the message
 * must name and what problem it must state. tests/bad-inputs/cli.test.ts runs them.
 */
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from '../../main/cli/index.js';
import { importDataset } from '../../main/engine/project/import.js';
import { writePly } from '../../main/engine/formats/ply.js';
import { emptySplats } from '../../shared/scene/splats.js';
import { camerasBin, colmapImage, imagesBin, writeColmapModel } from '../../main/engine/dataset/colmap-write.js';
import { makeColmapDataset, type SyntheticColmap } from '../helpers/datasets.js';
import { encodeJpeg, encodePng } from '../helpers/images.js';
import { tinyDataset, validManifest } from '../helpers/projects.js';
import { captureStreams } from '../helpers/streams.js';

export interface BadInput {
  /** The command line after `--no-gui` (`--json` is added). */
  argv: string[];
  /** The file the message must name. */
  file: string;
  /** The problem the message must state. */
  problem: RegExp;
  /** Paths that must not exist afterwards (a project that must not be created, an output). */
  mustNotExist?: string[];
}

export interface BadInputCase {
  name: string;
  /** Builds the input under `dir` (its own folder); `trained` is a finished project to point at. */
  build(dir: string, trained: TrainedProject): Promise<BadInput>;
}

export interface TrainedProject {
  /** A finished, trained project of the tiny dataset (its folder is hashed around every case). */
  file: string;
  dataset: string;
}

/** A finished project of the tiny dataset with checkpoints, in `<root>/bystander ü/`. */
export async function trainedProject(root: string): Promise<TrainedProject> {
  const ds = await tinyDataset();
  const dataset = path.join(root, 'bystander ü', 'dataset');
  await mkdir(path.dirname(dataset), { recursive: true });
  await cp(ds.root, dataset, { recursive: true });
  const file = path.join(root, 'bystander ü', 'trained.argo');
  await importDataset(dataset, file, { params: { 'train.iterations': 20, 'train.checkpointEvery': 5 } });
  const code = await runCli(['--no-gui', 'train', file, '--json'], { streams: captureStreams() });
  if (code !== 0) throw new Error(`could not train the bystander project (exit ${code})`);
  return { file, dataset };
}

/** A tiny COLMAP dataset copied into `dir/<name>` (binary model unless `kind` says text). */
async function colmap(dir: string, kind: 'bin' | 'txt' = 'bin'): Promise<SyntheticColmap & { root: string }> {
  const d = await makeColmapDataset({ width: 32, height: 24, count: 4, kind });
  const root = path.join(dir, 'my dataset ü');
  await rm(root, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await cp(d.root, root, { recursive: true });
  await rm(d.root, { recursive: true, force: true });
  return { ...d, root, sparse: path.join(root, 'sparse', '0') };
}

function importInto(dir: string, dataset: string): { argv: string[]; target: string } {
  const target = path.join(dir, 'new project ✓.argo');
  return { argv: ['import', dataset, '--project', target], target };
}

/** A grey all-255 mask for each of the tiny COLMAP dataset's four images, in `<root>/masks`. */
async function writeMasks(root: string, width: number, height: number): Promise<void> {
  await mkdir(path.join(root, 'masks'), { recursive: true });
  const samples = Array.from({ length: width * height }, (_, i) => (i % 7 === 0 ? 0 : 255));
  for (let i = 0; i < 4; i++) await writeFile(path.join(root, 'masks', `img_${i}.png.png`), encodePng({ width, height, colorType: 0, depth: 8, samples }));
}

async function truncate(file: string, keep: (length: number) => number): Promise<void> {
  const bytes = await readFile(file);
  await writeFile(file, bytes.subarray(0, keep(bytes.length)));
}

/** A COLMAP import case: `mutate` breaks the dataset; the message names `file(d)`. */
function colmapCase(name: string, kind: 'bin' | 'txt', mutate: (d: SyntheticColmap) => Promise<string>, problem: RegExp): BadInputCase {
  return {
    name,
    async build(dir) {
      const d = await colmap(dir, kind);
      const file = await mutate(d);
      const { argv, target } = importInto(dir, d.root);
      return { argv, file, problem, mustNotExist: [target, `${target}.data`] };
    },
  };
}

async function goodPly(file: string): Promise<void> {
  const s = emptySplats(3, 1);
  s.quats.fill(1);
  s.logScales.fill(-3);
  await writePly(file, s);
}

/** A PLY case read by `export`: `mutate` turns a valid PLY's bytes into the bad one. */
function plyCase(name: string, mutate: (bytes: Buffer) => Buffer | string, problem: RegExp): BadInputCase {
  return {
    name,
    async build(dir) {
      const file = path.join(dir, 'splats ü.ply');
      await goodPly(file);
      await writeFile(file, mutate(await readFile(file)));
      const out = path.join(dir, 'out.splat');
      return { argv: ['export', file, '--format', 'splat', '--out', out], file, problem, mustNotExist: [out] };
    },
  };
}

/** A project case: `write` produces the .argo's content; `argv` reads it. */
function projectCase(name: string, content: (trained: TrainedProject, dir: string) => string | Buffer, argv: (file: string, dir: string) => string[], problem: RegExp): BadInputCase {
  return {
    name,
    async build(dir, trained) {
      const file = path.join(dir, 'broken project ü.argo');
      await writeFile(file, content(trained, dir));
      return { argv: argv(file, dir), file, problem };
    },
  };
}

const headerEnd = (bytes: Buffer) => bytes.indexOf('end_header\n') + 'end_header\n'.length;

export const CASES: BadInputCase[] = [
  // ---- COLMAP binaries ----
  colmapCase('a truncated cameras.bin', 'bin', async (d) => {
    const file = path.join(d.sparse, 'cameras.bin');
    await truncate(file, (n) => n - 5);
    return file;
  }, /truncated at byte \d+/),
  colmapCase('a truncated images.bin', 'bin', async (d) => {
    const file = path.join(d.sparse, 'images.bin');
    await truncate(file, (n) => Math.floor(n / 2));
    return file;
  }, /truncated at byte \d+/),
  colmapCase('a truncated points3D.bin', 'bin', async (d) => {
    const file = path.join(d.sparse, 'points3D.bin');
    await truncate(file, (n) => n - 3);
    return file;
  }, /truncated at byte \d+/),
  colmapCase('a corrupted cameras.bin (unknown camera model id)', 'bin', async (d) => {
    const file = path.join(d.sparse, 'cameras.bin');
    const bytes = await readFile(file);
    bytes.writeInt32LE(99, 12);
    await writeFile(file, bytes);
    return file;
  }, /camera model|model id 99/i),
  colmapCase('a corrupted images.bin (a record count of 2^40)', 'bin', async (d) => {
    const file = path.join(d.sparse, 'images.bin');
    const bytes = await readFile(file);
    bytes.writeBigUInt64LE(1n << 40n, 0);
    await writeFile(file, bytes);
    return file;
  }, /\d+ (records|images)|truncated/),
  colmapCase('an image referencing a camera id that does not exist', 'bin', async (d) => {
    const file = path.join(d.sparse, 'images.bin');
    await writeFile(file, imagesBin(d.images.map((im) => ({ ...im, cameraId: 7 }))));
    return file;
  }, /camera (id )?7/),
  colmapCase('NaN in a pose (images.bin)', 'bin', async (d) => {
    const file = path.join(d.sparse, 'images.bin');
    await writeFile(file, imagesBin(d.images.map((im, i) => (i === 1 ? colmapImage(im.id, im.name, im.cameraId, [Number.NaN, 0, 0, 0], [...im.tvec] as [number, number, number]) : im))));
    return file;
  }, /NaN|not finite|non-finite/i),
  colmapCase('Inf in a pose (images.txt)', 'txt', async (d) => {
    const file = path.join(d.sparse, 'images.txt');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const fields = lines[1].split(' ');
    fields[5] = 'inf';
    lines[1] = fields.join(' ');
    await writeFile(file, lines.join('\n'));
    return file;
  }, /inf|not finite|non-finite/i),
  colmapCase('a zero focal length (cameras.bin)', 'bin', async (d) => {
    const file = path.join(d.sparse, 'cameras.bin');
    await writeFile(file, camerasBin(d.cameras.map((c) => ({ ...c, params: [0, ...c.params.slice(1)] }))));
    return file;
  }, /focal/i),
  colmapCase('a fisheye camera with a NaN parameter (cameras.bin)', 'bin', async (d) => {
    const file = path.join(d.sparse, 'cameras.bin');
    await writeFile(file, camerasBin(d.cameras.map((c) => ({ ...c, model: 'OPENCV_FISHEYE', params: [20, 20, 16, 12, 0.01, Number.NaN, 0, 0] }))));
    return file;
  }, /OPENCV_FISHEYE\): params\[5\] is NaN/),
  colmapCase('a fisheye whose model folds back inside the image (cameras.txt)', 'txt', async (d) => {
    const file = path.join(d.sparse, 'cameras.txt');
    await writeFile(file, '1 SIMPLE_RADIAL_FISHEYE 32 24 20 16 12 -20\n');
    return file;
  }, /fisheye distortion \[-20, 0, 0, 0\] folds back/),
  // ---- masks ----
  colmapCase('a mask of the wrong size', 'bin', async (d) => {
    await writeMasks(d.root, 32, 24);
    const file = path.join(d.root, 'masks', 'img_2.png.png');
    await writeFile(file, encodePng({ width: 31, height: 24, colorType: 0, depth: 8, samples: new Array(31 * 24).fill(255) }));
    return file;
  }, /mask is 31x24 but its image .*img_2.png is 32x24/),
  colmapCase('a mask folder with missing files', 'bin', async (d) => {
    await writeMasks(d.root, 32, 24);
    await rm(path.join(d.root, 'masks', 'img_1.png.png'));
    await rm(path.join(d.root, 'masks', 'img_3.png.png'));
    return path.join(d.root, 'masks');
  }, /no mask for 2 of 4 images: img_1.png .*img_3.png/),
  colmapCase('an unreadable mask (pixels cut off, header intact)', 'bin', async (d) => {
    await writeMasks(d.root, 32, 24);
    const file = path.join(d.root, 'masks', 'img_0.png.png');
    await truncate(file, (n) => n - 20);
    return file;
  }, /PNG|truncated|corrupt|decode/i),
  // ---- images ----
  colmapCase('a missing image', 'bin', async (d) => {
    const file = path.join(d.root, 'images', 'img_2.png');
    await rm(file);
    return file;
  }, /not found|missing|no such/i),
  colmapCase('a corrupt PNG (pixels cut off, header intact)', 'bin', async (d) => {
    const file = path.join(d.root, 'images', 'img_1.png');
    await truncate(file, (n) => n - 30);
    return file;
  }, /PNG|truncated|corrupt|decode/i),
  colmapCase('a corrupt JPEG (scan data cut off)', 'bin', async (d) => {
    const file = path.join(d.root, 'images', 'img_0.jpg');
    const jpeg = Buffer.from(encodeJpeg(32, 24, new Uint8Array(32 * 24 * 4).fill(200)));
    await writeFile(file, jpeg.subarray(0, Math.floor(jpeg.length * 0.6)));
    await writeColmapModel(d.sparse, { cameras: d.cameras, images: d.images.map((im, i) => (i === 0 ? { ...im, name: 'img_0.jpg' } : im)), points: d.points }, 'bin');
    return file;
  }, /JPEG|truncated|corrupt|decode/i),
  colmapCase('a zero-byte image', 'bin', async (d) => {
    const file = path.join(d.root, 'images', 'img_3.png');
    await writeFile(file, '');
    return file;
  }, /empty|0 bytes|not a PNG or JPEG|unknown image format/i),
  colmapCase('a text file named like an image', 'bin', async (d) => {
    const file = path.join(d.root, 'images', 'img_2.png');
    await writeFile(file, 'this is not an image\n');
    return file;
  }, /not a PNG or JPEG|unknown image format|unsupported/i),
  colmapCase('an image whose size differs from its camera', 'bin', async (d) => {
    const file = path.join(d.root, 'images', 'img_1.png');
    const { randomPng } = await import('../helpers/datasets.js');
    await writeFile(file, randomPng(16, 12, () => 0.5));
    return file;
  }, /16x12.*32x24|32x24.*16x12/),
  // ---- transforms.json / NeRF-synthetic ----
  {
    name: 'a transforms.json that is not JSON',
    async build(dir) {
      const root = path.join(dir, 'nerf studio ü');
      await mkdir(root, { recursive: true });
      const file = path.join(root, 'transforms.json');
      await writeFile(file, '{ "frames": [ ');
      const { argv, target } = importInto(dir, root);
      return { argv, file, problem: /JSON/i, mustNotExist: [target] };
    },
  },
  {
    name: 'Inf in a transforms.json pose (1e999)',
    async build(dir) {
      const root = path.join(dir, 'poses ü');
      await mkdir(path.join(root, 'images'), { recursive: true });
      const { randomPng } = await import('../helpers/datasets.js');
      await writeFile(path.join(root, 'images', 'a.png'), randomPng(8, 6, () => 0.3));
      const file = path.join(root, 'transforms.json');
      await writeFile(file, `{"fl_x": 10, "fl_y": 10, "cx": 4, "cy": 3, "w": 8, "h": 6, "frames": [{"file_path": "images/a.png", "transform_matrix": [[1,0,0,1e999],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]}`);
      const { argv, target } = importInto(dir, root);
      return { argv, file, problem: /finite|Infinity|inf/i, mustNotExist: [target] };
    },
  },
  {
    name: 'a NeRF-synthetic split without camera_angle_x',
    async build(dir) {
      const root = path.join(dir, 'lego ü');
      await mkdir(root, { recursive: true });
      const file = path.join(root, 'transforms_train.json');
      await writeFile(file, JSON.stringify({ frames: [{ file_path: './train/r_0', transform_matrix: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 4], [0, 0, 0, 1]] }] }));
      const { argv, target } = importInto(dir, root);
      return { argv, file, problem: /camera_angle_x/, mustNotExist: [target] };
    },
  },
  // ---- video-like files ----
  {
    name: 'a zero-byte "video"',
    async build(dir) {
      const file = path.join(dir, 'clip ü.mp4');
      await mkdir(dir, { recursive: true });
      await writeFile(file, '');
      const { argv, target } = importInto(dir, file);
      return { argv, file, problem: /empty \(0 bytes\)/, mustNotExist: [target] };
    },
  },
  {
    name: 'a non-video file named .mov',
    async build(dir) {
      const file = path.join(dir, 'holiday.mov');
      await mkdir(dir, { recursive: true });
      await writeFile(file, 'PK\u0003\u0004 a zip archive, renamed');
      const { argv, target } = importInto(dir, file);
      return { argv, file, problem: /not a video/, mustNotExist: [target] };
    },
  },
  {
    name: 'a file that is neither a dataset nor a video',
    async build(dir) {
      const file = path.join(dir, 'notes.txt');
      await mkdir(dir, { recursive: true });
      await writeFile(file, 'hello');
      const { argv, target } = importInto(dir, file);
      return { argv, file, problem: /not a dataset/, mustNotExist: [target] };
    },
  },
  // ---- PLY ----
  plyCase('a PLY with a wrong header (not "ply")', (b) => Buffer.concat([Buffer.from('plx'), b.subarray(3)]), /not a PLY|magic|"ply"/i),
  plyCase('a PLY whose header never ends', (b) => b.subarray(0, headerEnd(b) - 'end_header\n'.length), /end_header/),
  plyCase('a PLY with a truncated body', (b) => b.subarray(0, b.length - 7), /truncated/),
  plyCase('a PLY with NaN values', (b) => {
    const out = Buffer.from(b);
    out.writeFloatLE(Number.NaN, headerEnd(b) + 4);
    return out;
  }, /NaN\/Inf in property y of vertex 0/),
  plyCase('a PLY without opacity', (b) => Buffer.from(b.toString('latin1').replace('property float opacity\n', 'property float opacitx\n'), 'latin1'), /missing property opacity/),
  plyCase('a zero-byte PLY', () => Buffer.alloc(0), /empty|not a PLY|magic/i),
  // ---- projects ----
  projectCase('a project file that is not JSON', () => 'name = "statue"\n', (f) => ['train', f], /not valid JSON/),
  projectCase('a zero-byte project file', () => '', (f) => ['export', f, '--format', 'ply', '--out', '/tmp/never.ply'], /the project file is empty/),
  projectCase('a project from a newer version', () => JSON.stringify({ ...validManifest(), version: 4 }), (f) => ['train', f], /project version 4 is newer than this build of Argonaut Studio reads \(version 3\); update Argonaut Studio/),
  projectCase('a project with an out-of-range parameter', () => JSON.stringify({ ...validManifest(), params: { 'train.iterations': -5 } }), (f) => ['train', f], /params\.train\.iterations/),
  projectCase('a project pointing at a missing dataset', (_t, dir) => JSON.stringify({ ...validManifest(), dataset: { ...validManifest().dataset, path: 'gone dataset ü', absolutePath: path.join(dir, 'also gone') } }), (f) => ['train', f], /the project's dataset .*gone dataset ü is missing/),
  projectCase('a project whose trained splats are missing', (t, dir) => {
    const m = validManifest({ runs: [{ id: 'run-001', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', params: {}, status: 'finished', step: 10, total: 10, resumes: [], checkpointsDir: 'nowhere/checkpoints', metrics: [], evaluations: [], outputs: { splats: 'nowhere/splats.ply', splatCount: 5 } }] });
    void t;
    void dir;
    return JSON.stringify(m);
  }, (f, dir) => ['export', f, '--format', 'spz', '--out', path.join(dir, 'x.spz')], /no trained splats found \(run-001's splats .*nowhere[/\\]splats\.ply are missing\)/),
  {
    name: 'a project whose only checkpoint is damaged (the checkpoint is left as it is)',
    async build(dir) {
      const file = path.join(dir, 'damaged ü.argo');
      await mkdir(path.join(dir, 'ckpts'), { recursive: true });
      const m = validManifest({ runs: [{ id: 'run-001', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', params: {}, status: 'interrupted', step: 10, total: 100, resumes: [], checkpointsDir: 'ckpts', metrics: [], evaluations: [], outputs: {} }] });
      await writeFile(file, JSON.stringify(m));
      // Cut short, as a failing disk would leave it (our own writes are atomic).
      await writeFile(path.join(dir, 'ckpts', 'step-0000010.ckpt'), Buffer.concat([Buffer.from('ARGOCKPT'), Buffer.from([1, 0, 0, 0, 200, 0, 0, 0]), Buffer.from('{"format":')]));
      const out = path.join(dir, 'x.ply');
      return { argv: ['export', file, '--format', 'ply', '--out', out], file, problem: /no trained splats found \(.*step-0000010\.ckpt: skipped \(truncated: header of 200 bytes/, mustNotExist: [out] };
    },
  },
  {
    name: 'import over an existing project (it is not overwritten)',
    async build(dir, trained) {
      return { argv: ['import', trained.dataset, '--project', trained.file], file: trained.file, problem: /the project file already exists; open it, or choose another name/ };
    },
  },
  {
    name: 'a camera file with NaN in its pose',
    async build(dir, trained) {
      const cam = path.join(dir, 'cam ü.json');
      await mkdir(dir, { recursive: true });
      await writeFile(cam, '{"width": 32, "height": 24, "fx": 30, "fy": 30, "cx": 16, "cy": 12, "world_to_camera": [[1,0,0,0],[0,1,0,0],[0,0,1,"NaN"],[0,0,0,1]]}');
      const out = path.join(dir, 'never.png');
      return { argv: ['render', trained.file, '--camera', cam, '--out', out], file: cam, problem: /world_to_camera/, mustNotExist: [out] };
    },
  },
  {
    name: 'a camera path file with NaN keys (as Python writes them)',
    async build(dir, trained) {
      const file = path.join(dir, 'path ü.json');
      const key = (time: number, x: string) => `{"time": ${time}, "position": [${x}, 0, -3], "rotation": [0, 0, 0, 1], "fovYDeg": 50}`;
      await writeFile(file, `{"id": "p", "name": "P", "interpolation": "smooth", "loop": false, "duration": 2, "keyframes": [${key(0, '0')}, ${key(2, 'NaN')}]}`);
      const out = path.join(dir, 'never.mp4');
      return { argv: ['render', trained.file, '--path', file, '--out', out], file, problem: /keyframes\.1\.position\.0: expected a finite number, got NaN/, mustNotExist: [out] };
    },
  },
  {
    name: 'a camera path file whose keyframe times do not increase',
    async build(dir, trained) {
      const file = path.join(dir, 'path ü.json');
      const key = (time: number) => ({ time, position: [time, 0, -3], rotation: [0, 0, 0, 1], fovYDeg: 50 });
      await writeFile(file, JSON.stringify({ id: 'p', name: 'P', interpolation: 'linear', loop: false, duration: 3, keyframes: [key(0), key(2), key(1)] }));
      const out = path.join(dir, 'never.mp4');
      return { argv: ['render', trained.file, '--path', file, '--out', out], file, problem: /keyframes\.2\.time: keyframe times must increase \(2 then 1\)/, mustNotExist: [out] };
    },
  },
  {
    name: 'render --view past the last view',
    async build(dir, trained) {
      const out = path.join(dir, 'never.png');
      return { argv: ['render', trained.file, '--view', '42', '--out', out], file: trained.file, problem: /view 42 does not exist: the dataset has views 0 to \d+/, mustNotExist: [out] };
    },
  },
  {
    name: 'export into a folder that does not exist',
    async build(dir, trained) {
      const out = path.join(dir, 'no such folder ü', 'x.ply');
      return { argv: ['export', trained.file, '--format', 'ply', '--out', out], file: out, problem: /cannot write: the folder .* does not exist/, mustNotExist: [out] };
    },
  },
  {
    name: 'edit --crop with NaN in the box',
    async build(dir, trained) {
      return { argv: ['edit', trained.file, '--crop', '0,0,NaN,1,1,1'], file: trained.file, problem: /--crop: value 3 is "NaN", not a finite number/ };
    },
  },
  {
    name: 'edit --crop with a negative half size',
    async build(dir, trained) {
      return { argv: ['edit', trained.file, '--crop', '0,0,0,1,-0.5,1'], file: trained.file, problem: /--crop: half size y is -0\.5; half sizes must be > 0/ };
    },
  },
  {
    name: 'edit --delete-indices with an index file that is not one',
    async build(dir) {
      const list = path.join(dir, 'indices ü.txt');
      await mkdir(dir, { recursive: true });
      await writeFile(list, '1\n2\n-3\n');
      const file = path.join(dir, 'never.argo');
      return { argv: ['edit', file, '--delete-indices', list], file: list, problem: /entry 3 is "-3", not a splat index/, mustNotExist: [file] };
    },
  },
  {
    name: 'a project whose edit list names an unknown operation (the file is left as it is)',
    async build(dir) {
      const file = path.join(dir, 'melted ü.argo');
      await mkdir(dir, { recursive: true });
      const m = validManifest({ edits: { current: { base: { run: 'run-001', step: 0, splats: 10 }, operations: [{ op: 'melt', id: 'e-0001', at: '2026-01-01T00:00:00.000Z' } as never], undone: [] }, history: [] } });
      await writeFile(file, JSON.stringify(m));
      const out = path.join(dir, 'x.ply');
      return { argv: ['export', file, '--format', 'ply', '--out', out], file, problem: /edits\.current\.operations\.0/, mustNotExist: [out] };
    },
  },
];
