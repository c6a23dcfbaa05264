#!/usr/bin/env node
/**
 * A partitioned run through the queue, measured: a redis-server of its own (append-only, on a free
 * port, in a temporary folder), W worker processes of the built CLI (sharing one GPU, or one each
 * with --adapters), the coordinator (`train p.argo --partition ID --queue URL`), then one JSON:
 * wall time, each block's job (worker, steps, train time, peak GPU memory, splats), the merge and
 * its seams (from the project's manifest).
 *
 *   node scripts/build.mjs
 *   node bench/partition-queue.mjs --project city.argo --partition partition-001 --workers 2 \
 *     [--adapters NAME,NAME] [--merge-fine-tune N] --out bench/results/h200-partition-queue-2w.json
 *
 * Each call trains a new run (the newest, finished, is kept). Needs redis-server on PATH.
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

const project = path.resolve(option('project'));
const partition = option('partition');
const workers = Number(option('workers', '1'));
const adapters = option('adapters', '').split(',').filter(Boolean);
const fineTune = option('merge-fine-tune', '0');
const outFile = option('out');
if (!project || !partition || !outFile || !(workers >= 1)) {
  console.error('usage: node bench/partition-queue.mjs --project p.argo --partition partition-NNN --workers W [--adapters A,B] [--merge-fine-tune N] --out result.json');
  process.exit(2);
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
  const jobs = pool.flatMap((w) => w.lines.filter((l) => l.type === 'job' && l.run === result.run));
  const perWorker = {};
  for (const job of jobs) perWorker[job.worker] = Math.max(perWorker[job.worker] ?? 0, job.peakGpuBytes);
  const report = {
    project, partition, run: result.run, workers, adapters, merge_fine_tune: Number(fineTune),
    wall_s: wallS,
    block_train_s_sum: jobs.reduce((s, j) => s + j.trainS, 0),
    peak_gpu_bytes_per_worker: perWorker,
    jobs,
    merge: run.partition.merge,
    splats: run.outputs.splatCount,
    evaluations: run.evaluations,
    machine: { host: os.hostname(), cpus: os.cpus().length, node: process.version },
    at: new Date().toISOString(),
  };
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`${result.run}: ${jobs.length} blocks on ${workers} workers in ${wallS.toFixed(1)} s; seams ${JSON.stringify(run.partition.merge.seams ?? null)} -> ${outFile}`);
} finally {
  for (const w of pool) w.child.kill('SIGINT');
  await Promise.all(pool.map((w) => w.exited));
  redis.kill('SIGTERM');
  await new Promise((resolve) => (redis.exitCode !== null ? resolve() : redis.once('exit', resolve)));
  rmSync(redisDir, { recursive: true, force: true });
}
