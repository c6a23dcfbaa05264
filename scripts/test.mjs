// `npm test`: build, lint (incl. the process-boundary rules), type-check (tsc + vue-tsc), then every
// vitest test (unit, GPU parity on this machine's adapter, end-to-end), then the kernels that must
// hold on other adapters again on SwiftShader's Vulkan and with 16 KiB of workgroup storage. Ends with one plain line
// `N passed, N failed, N skipped` and exits non-zero when anything failed.
//   npm test                 everything
//   npm test -- <filter>     only vitest files matching <filter> (build, lint and types still run)
//
// What overlaps, and why (docs/testing.md has the measurements): lint, tsc and vue-tsc are one
// process each of about 20-40 s of one core; they start with the build and run beside the
// tests at a lower priority (nice 10), so they take the cores the tests leave idle instead of
// three minutes of their own. Their output is held and printed in one block when each ends. The
// passes on the two other adapters are projects of the same vitest run (vitest.config.ts,
// ARGONAUT_TEST_PASSES=all), so one pool of workers takes every file instead of three runs each
// ending with one worker idle behind its last file.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECOND_ADAPTER_PASSES, SWIFTSHADER_ICD, THIS_ADAPTER } from './test-passes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function record(name, ok, status) {
  if (ok) passed += 1;
  else {
    failed += 1;
    failures.push(`${name} (exit ${status})`);
  }
}

/**
 * One step as a child process. `held`: its output is kept and printed in one block when it ends
 * (for the steps that run beside others); `nice`: that much below this process's priority.
 * Resolves with success.
 */
function step(name, command, args, { held = false, nice = 0, env = {} } = {}) {
  const started = Date.now();
  if (!held) process.stdout.write(`\n== ${name}\n`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: { ...process.env, ...env } });
    const output = [];
    if (held) {
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
    }
    if (nice && child.pid !== undefined) {
      try {
        setPriority(child.pid, Math.min(19, getPriority() + nice));
      } catch {
        // not permitted here: it runs at the tests' priority, which only costs time
      }
    }
    let spawnError;
    child.once('error', (error) => (spawnError = error));
    child.once('close', (code, signal) => {
      const ok = code === 0;
      const status = spawnError?.message ?? code ?? signal;
      const text = Buffer.concat(output).toString();
      process.stdout.write(`${held ? `\n== ${name}\n${text}${text && !text.endsWith('\n') ? '\n' : ''}` : ''}== ${name}: ${ok ? 'ok' : `FAILED (exit ${status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      record(name, ok, status);
      resolve(ok);
    });
  });
}

/** The vitest run; its counts join the totals. */
async function vitest(label, args, env = {}) {
  const report = path.join(root, 'test-output', `${label}.json`);
  mkdirSync(path.dirname(report), { recursive: true });
  rmSync(report, { force: true });
  const started = Date.now();
  process.stdout.write(`\n== ${label}\n`);
  const result = await new Promise((resolve) => {
    const child = spawn(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    child.once('error', (error) => resolve({ status: error.message }));
    child.once('close', (code, signal) => resolve({ status: code ?? signal }));
  });
  process.stdout.write(`== ${label}: exit ${result.status} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (!existsSync(report)) {
    failed += 1;
    failures.push(`${label}: vitest produced no report (exit ${result.status})`);
    return;
  }
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  skipped += json.numPendingTests + (json.numTodoTests ?? 0);
  for (const file of json.testResults) for (const t of file.assertionResults) if (t.status === 'failed') failures.push(`${label}: ${path.relative(root, file.name)} > ${t.fullName}`);
  // Files that failed to load and unhandled errors fail the run without failing a test.
  const broken = json.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((t) => t.status === 'failed'));
  for (const f of broken) failures.push(`${label}: ${path.relative(root, f.name)}: ${String(f.message).split('\n')[0]}`);
  failed += broken.length;
  if (result.status !== 0 && json.numFailedTests === 0 && broken.length === 0) {
    failed += 1;
    failures.push(`${label}: vitest exited with ${result.status} (unhandled errors)`);
  }
}

/**
 * CI (.ci/run) starts npm test while apt-get still installs what the tests need (Mesa, Chromium,
 * ffmpeg, COLMAP, Redis; the build and the checks need none of it): ARGONAUT_TEST_AFTER names the
 * file that apt-get's exit status is written to, whole, when it ends. Resolves with whether it was 0.
 */
async function systemPackagesReady() {
  const file = process.env.ARGONAUT_TEST_AFTER;
  if (!file) return true;
  const started = Date.now();
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 1000));
  const status = readFileSync(file, 'utf8').trim();
  process.stdout.write(`\n== system packages (${file}): exit ${status}, waited ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (status === '0') return true;
  failed += 1;
  failures.push(`vitest: not run because the system packages did not install (${file}: exit ${status})`);
  return false;
}

const checks = [
  step('lint', bin('eslint'), ['.'], { held: true, nice: 10 }),
  step('typecheck (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit'], { held: true, nice: 10 }),
  step('typecheck (vue-tsc)', bin('vue-tsc'), ['-p', 'renderer/tsconfig.json', '--noEmit'], { held: true, nice: 10 }),
];
const built = await step('build', process.execPath, [path.join(root, 'scripts/build.mjs')]);

if (!built) {
  failed += 1;
  failures.push('vitest: not run because the build failed');
} else if (await systemPackagesReady()) {
  // The passes on the other adapters (tests/helpers/gpu.ts isSecondAdapterRun; the kernels'
  // parity on SwiftShader's Vulkan driver and on llvmpipe with WebGPU's default limits, issue 13,
  // docs/device-matrix.md) run with the whole suite, not after it; a filter runs this adapter's pass alone.
  const projects = [THIS_ADAPTER];
  if (!filters.length) {
    for (const pass of SECOND_ADAPTER_PASSES) {
      if (pass.name === 'swiftshader' && !existsSync(SWIFTSHADER_ICD)) {
        failed += 1;
        failures.push(`vitest-swiftshader: ${SWIFTSHADER_ICD} is missing (apt-get install chromium: its chromium-common ships SwiftShader)`);
      } else projects.push(pass.name);
    }
  }
  await vitest('vitest', [...projects.flatMap((name) => ['--project', name]), ...filters], { ARGONAUT_TEST_PASSES: 'all' });
}
await Promise.all(checks);

if (failures.length) {
  process.stdout.write('\nFailures:\n');
  for (const f of failures) process.stdout.write(`  - ${f}\n`);
}
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(failed > 0 ? 1 : 0);
