/**
 * A stand-in for the colmap executable (a Node script), so the SfM pipeline's option naming,
 * progress parsing, stage resume, cancellation and failure paths are tested in milliseconds and
 * for versions not installed here. It prints what COLMAP prints (3.13+ with glog line prefixes),
 * appends every call's arguments to a log, and behaves as told by environment variables:
 *   FAKE_COLMAP_VERSION  "3.8" (SiftExtraction.* names) or "3.13.0" (FeatureExtraction.*)
 *   FAKE_COLMAP_CALLS    file that receives one JSON line per call: the argv
 *   FAKE_COLMAP_MODELS   model folders separated by the path delimiter: the mapper writes them as sparse/0, sparse/1, ...
 *                        Unset: the mapper "registers" every image the extractor saw (their names are kept in the
 *                        fake database file) except those matching FAKE_COLMAP_UNREGISTERED (a regular expression),
 *                        as a binary model with one camera, identity rotations and no points.
 *   FAKE_COLMAP_HANG     a command that prints one progress line, then waits forever (ignoring SIGTERM)
 *   FAKE_COLMAP_FAIL     a command that prints an ERROR line and exits 1
 */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';

const SCRIPT = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const [command, ...args] = process.argv.slice(2);
const env = process.env;
const version = env.FAKE_COLMAP_VERSION || '3.13.0';
const modern = Number(version.split('.')[1]) >= 13;
const glog = (msg) => (modern ? 'I20250101 12:00:00.000000 4242 fake.cc:1] ' + msg : msg);
const out = (msg) => process.stdout.write(glog(msg) + '\n');
if (env.FAKE_COLMAP_CALLS) fs.appendFileSync(env.FAKE_COLMAP_CALLS, JSON.stringify([command, ...args]) + '\n');
const arg = (name) => { const i = args.indexOf('--' + name); return i < 0 ? undefined : args[i + 1]; };
if (command === 'help' || command === undefined) {
  process.stdout.write('COLMAP ' + version + ' -- Structure-from-Motion and Multi-View Stereo\n              (Commit fake on fake without CUDA)\n');
  process.exit(0);
}
if (args.includes('--help')) {
  const ex = modern ? 'FeatureExtraction' : 'SiftExtraction';
  const ma = modern ? 'FeatureMatching' : 'SiftMatching';
  const common = ['log_to_stderr', 'log_level', 'database_path', 'image_path', 'output_path', 'input_path'];
  const byCommand = {
    feature_extractor: ['image_list_path', 'ImageReader.camera_model', 'ImageReader.single_camera', 'ImageReader.mask_path', ex + '.use_gpu', ex + '.num_threads', ex + '.max_image_size', 'SiftExtraction.max_num_features'],
    sequential_matcher: [ma + '.use_gpu', ma + '.num_threads', 'SequentialMatching.overlap'],
    exhaustive_matcher: [ma + '.use_gpu', ma + '.num_threads', 'ExhaustiveMatching.block_size'],
    mapper: ['Mapper.num_threads', 'Mapper.multiple_models'],
    bundle_adjuster: ['BundleAdjustment.max_num_iterations'],
  };
  for (const name of [...common, ...(byCommand[command] || [])]) process.stdout.write('  --' + name + ' arg\n');
  process.exit(0);
}
if (env.FAKE_COLMAP_FAIL === command) {
  process.stdout.write('ERROR: fake failure in ' + command + '\n');
  process.exit(1);
}
if (env.FAKE_COLMAP_HANG === command) process.on('SIGTERM', () => {}); // only SIGKILL stops it
const hang = () => setInterval(() => {}, 1000);
if (command === 'feature_extractor') {
  const list = fs.readFileSync(arg('image_list_path'), 'utf8').split('\n').filter(Boolean);
  fs.appendFileSync(arg('database_path'), list.map((n) => n + '\n').join(''));
  list.forEach((name, i) => {
    out('Processed file [' + (i + 1) + '/' + list.length + ']');
    out('  Name:            ' + name);
    out('  Features:        ' + (100 * (i + 1)));
    if (i === 0 && env.FAKE_COLMAP_HANG === command) hang();
  });
} else if (command === 'sequential_matcher' || command === 'exhaustive_matcher') {
  for (let i = 1; i <= 4; i++) {
    out(command === 'sequential_matcher' ? 'Matching image [' + i + '/4] in 0.1s' : 'Matching block [' + Math.ceil(i / 2) + '/2, ' + (((i - 1) % 2) + 1) + '/2] in 0.1s');
    if (i === 1 && env.FAKE_COLMAP_HANG === command) return hang();
  }
} else if (command === 'mapper' && env.FAKE_COLMAP_MODELS === undefined) {
  const skip = env.FAKE_COLMAP_UNREGISTERED ? new RegExp(env.FAKE_COLMAP_UNREGISTERED) : null;
  const names = [...new Set(fs.readFileSync(arg('database_path'), 'utf8').split('\n').filter(Boolean))].filter((n) => !skip || !skip.test(n));
  if (names.length < 2) {
    out('No good initial image pair found.');
    process.exit(0);
  }
  const dest = path.join(arg('output_path'), '0');
  fs.mkdirSync(dest, { recursive: true });
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
  const f64 = (...vs) => Buffer.concat(vs.map((v) => { const b = Buffer.alloc(8); b.writeDoubleLE(v); return b; }));
  fs.writeFileSync(path.join(dest, 'cameras.bin'), Buffer.concat([u64(1), u32(1), u32(2), u64(100), u64(100), f64(100, 50, 50, 0)]));
  fs.writeFileSync(path.join(dest, 'images.bin'), Buffer.concat([u64(names.length), ...names.map((n, i) => Buffer.concat([u32(i + 1), f64(1, 0, 0, 0, 0.1 * i, 0, 0), u32(1), Buffer.from(n + '\0'), u64(0)]))]));
  fs.writeFileSync(path.join(dest, 'points3D.bin'), u64(0));
  names.forEach((n, i) => out('Registering image #' + (i + 1) + ' (' + (i + 1) + ')'));
} else if (command === 'mapper') {
  const models = (env.FAKE_COLMAP_MODELS || '').split(path.delimiter).filter(Boolean);
  models.forEach((dir, k) => {
    out('Finding good initial image pair');
    out('Initializing with image pair #1 and #2');
    const dest = path.join(arg('output_path'), String(k));
    fs.mkdirSync(dest, { recursive: true });
    for (const f of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, f), path.join(dest, f));
    out('Registering image #3 (3)');
    if (env.FAKE_COLMAP_HANG === command) hang();
  });
  if (models.length === 0) out('No good initial image pair found.');
} else if (command === 'bundle_adjuster') {
  const input = arg('input_path');
  for (const f of fs.readdirSync(input)) fs.copyFileSync(path.join(input, f), path.join(arg('output_path'), f));
  process.stdout.write('iter      cost      cost_change  |gradient|   |step|    tr_ratio  tr_radius  ls_iter  iter_time  total_time\n');
  process.stdout.write('   0  3.796197e+01    0.00e+00    6.56e+03   0.00e+00   0.00e+00  1.00e+04        0    1.71e-03    5.08e-03\n');
}
`;

/** Writes the fake into `dir` as `colmap` (executable); returns its path. */
export async function writeFakeColmap(dir: string): Promise<string> {
  const file = path.join(dir, 'colmap');
  await writeFile(file, `#!${process.execPath}\n${SCRIPT}`);
  await chmod(file, 0o755);
  return file;
}
