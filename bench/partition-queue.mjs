#!/usr/bin/env node
/**
 * A partitioned run through the queue, measured: a redis-server of its own (append-only, on a free
 * port, in a temporary folder), W worker processes of the built CLI (sharing one GPU, or one each
 * with --adapters), the coordinator (`train p.argo --partition ID --queue URL`), then one JSON:
 * wall time, each block's job (worker, steps, train time, peak GPU memory, splats), the merge, its
 * seams and its test PSNR (from the project's manifest) against the project's newest run trained
 * whole, when it has one. With --whole: that run, the same scene trained whole (`train --new-run`),
 * measured alike (no queue).
 *
 *   node scripts/build.mjs
 *   node bench/partition-queue.mjs --project city.argo --whole --out bench/results/h200-partition-whole.json
 *   node bench/partition-queue.mjs --project city.argo --partition partition-001 --workers 2 \
 *     [--adapters NAME,NAME] [--merge-fine-tune N] --out bench/results/h200-partition-queue-2w.json
 *
 * Each call trains a new run (the newest, finished, is kept). The queue needs redis-server on PATH
 * (the GPU machine: .gpu-data/redis, scripts/gpu-prepare.sh's set `queue`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'out/cli/index.mjs');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  return value;
}

const project = path.resolve(option('project', ''));
const whole = process.argv.includes('--whole');
const partition = option('partition');
const workers = Number(option('workers', '1'));
const adapters = option('adapters', '').split(',').filter(Boolean);
const fineTune = option('merge-fine-tune', '0');
const outFile = option('out');
if (!option('project') || !outFile || (!whole && (!partition || !(workers >= 1)))) {
  console.error('usage: node bench/partition-queue.mjs --project p.argo (--whole | --partition partition-NNN --workers W [--adapters A,B] [--merge-fine-tune N]) --out result.json');
  process.exit(2);
}
const machine = () => ({ host: os.hostname(), cpus: os.cpus().length, node: process.version });

/** The newest run trained whole (not as blocks) and finished: what a partitioned run is compared with. */
function wholeRun(manifest) {
  return manifest.runs.filter((r) => !r.partition && r.status === 'finished').at(-1);
}

/** A CLI process whose JSON lines are collected. */
function start(args) {
  const child = spawn(process.execPath, [cli, '--no-gui', ...args, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = [];
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) lines.push(JSON.parse(line));
    }
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, exited };
}

if (whole) {
  const started = performance.now();
  const trainer = start(['train', project, '--new-run']);
  const { code } = await trainer.exited;
  const wallS = (performance.now() - started) / 1000;
  const result = trainer.lines.find((l) => l.type === 'result');
  if (code !== 0 || !result) throw new Error(`train exited ${code}: ${JSON.stringify(trainer.lines.find((l) => l.type === 'error'))}`);
  const report = {
    project, mode: 'whole', run: result.run, wall_s: wallS, train_s: result.train_s, steps: result.steps,
    peak_gpu_bytes: result.peak_gpu_bytes, splats: result.splats, psnr: result.psnr, ssim: result.ssim, cc_psnr: result.cc_psnr,
    backend: result.backend, adapter: result.adapter, driver: result.driver, commit: result.commit, machine: machine(), at: new Date().toISOString(),
  };
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`${result.run}: trained whole in ${wallS.toFixed(1)} s, test PSNR ${result.psnr.toFixed(2)} dB -> ${outFile}`);
  process.exit(0);
}

const redisServer = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
if (!redisServer) {
  console.error('redis-server is not on PATH (apt-get install redis-server)');
  process.exit(3);
}

const port = await new Promise((resolve) => {
  const server = net.createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = server.address();
    server.close(() => resolve(p));
  });
});
const redisDir = mkdtempSync(path.join(os.tmpdir(), 'argonaut-bench-redis-'));
const redis = spawn(redisServer, ['--port', String(port), '--bind', '127.0.0.1', '--dir', redisDir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve, reject) => {
  let log = '';
  redis.stdout.on('data', (c) => {
    log += c;
    if (/Ready to accept connections/.test(log)) resolve();
  });
  redis.once('exit', (code) => reject(new Error(`redis-server exited (${code})`)));
});
const queue = `redis://127.0.0.1:${port}`;

const pool = Array.from({ length: workers }, (_, i) => start(['worker', '--queue', queue, ...(adapters.length ? ['--adapter', adapters[i % adapters.length]] : [])]));
try {
  const started = performance.now();
  const coordinator = start(['train', project, '--partition', partition, '--queue', queue, '--merge-fine-tune', fineTune]);
  const { code } = await coordinator.exited;
  const wallS = (performance.now() - started) / 1000;
  const result = coordinator.lines.find((l) => l.type === 'result');
  if (code !== 0 || !result) throw new Error(`the coordinator exited ${code}: ${JSON.stringify(coordinator.lines.find((l) => l.type === 'error'))}`);
  const manifest = JSON.parse(readFileSync(project, 'utf8'));
  const run = manifest.runs.find((r) => r.id === result.run);
  const baseline = wholeRun(manifest);
  const jobs = pool.flatMap((w) => w.lines.filter((l) => l.type === 'job' && l.run === result.run));
  const perWorker = {};
  for (const job of jobs) perWorker[job.worker] = Math.max(perWorker[job.worker] ?? 0, job.peakGpuBytes);
  const report = {
    project, partition, run: result.run, workers, adapters, merge_fine_tune: Number(fineTune), redis_server: redisServer,
    wall_s: wallS,
    block_train_s_sum: jobs.reduce((s, j) => s + j.trainS, 0),
    peak_gpu_bytes_per_worker: perWorker,
    jobs,
    merge: run.partition.merge,
    splats: run.outputs.splatCount,
    merged_psnr: run.partition.merge.evaluation?.psnr,
    ...(baseline ? { whole: { run: baseline.id, psnr: baseline.evaluations.at(-1)?.psnr, ssim: baseline.evaluations.at(-1)?.ssim, splats: baseline.outputs.splatCount }, merged_minus_whole_psnr: run.partition.merge.evaluation?.psnr - baseline.evaluations.at(-1)?.psnr } : {}),
    evaluations: run.evaluations,
    machine: machine(),
    at: new Date().toISOString(),
  };
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`${result.run}: ${jobs.length} blocks on ${workers} workers in ${wallS.toFixed(1)} s; merged test PSNR ${report.merged_psnr?.toFixed(2)} dB${baseline ? ` (whole ${report.whole.psnr?.toFixed(2)} dB)` : ''}; seams ${JSON.stringify(run.partition.merge.seams ?? null)} -> ${outFile}`);
} finally {
  for (const w of pool) w.child.kill('SIGINT');
  await Promise.all(pool.map((w) => w.exited));
  redis.kill('SIGTERM');
  await new Promise((resolve) => (redis.exitCode !== null ? resolve() : redis.once('exit', resolve)));
  rmSync(redisDir, { recursive: true, force: true });
}
