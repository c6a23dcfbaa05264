// `npm test`: build, lint (incl. the process-boundary rules), type-check (tsc + vue-tsc), then every
// vitest test (unit, GPU parity on this machine's adapter, end-to-end), then the kernels that must
// hold on other adapters again on SwiftShader's Vulkan and with 16 KiB of workgroup storage. Ends with one plain line
// `N passed, N failed, N skipped` and exits non-zero when anything failed.
//   npm test                 everything
//   npm test -- <filter>     only vitest files matching <filter> (build, lint and types still run)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function step(name, command, args) {
  const started = Date.now();
  process.stdout.write(`\n== ${name}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  const ok = result.status === 0;
  process.stdout.write(`== ${name}: ${ok ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (ok) passed += 1;
  else {
    failed += 1;
    failures.push(name);
  }
  return ok;
}

const built = step('build', process.execPath, [path.join(root, 'scripts/build.mjs')]);
step('lint', bin('eslint'), ['.']);
step('typecheck (tsc)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
step('typecheck (vue-tsc)', bin('vue-tsc'), ['-p', 'renderer/tsconfig.json', '--noEmit']);

/** One vitest run; its counts join the totals. `env` adds to this process's environment. */
function vitest(label, args, env = {}) {
  const report = path.join(root, 'test-output', `${label}.json`);
  mkdirSync(path.dirname(report), { recursive: true });
  rmSync(report, { force: true });
  process.stdout.write(`\n== ${label}\n`);
  const result = spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (!existsSync(report)) {
    failed += 1;
    failures.push(`${label}: vitest produced no report (exit ${result.status ?? result.signal})`);
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

// The kernels' parity once more on other adapters than this machine's own (issue 13;
// docs/device-matrix.md): SwiftShader's Vulkan driver (subgroups of 4, 32 KiB, 12 storage buffers
// per stage: both variants), and llvmpipe with WebGPU's default limits (16 KiB of workgroup
// storage, 8 storage buffers per stage: the packed kernels). The rasterizer's file takes two
// cases there that reach every pipeline (tests/helpers/gpu.ts isSecondAdapterRun).
const SWIFTSHADER_FILES = ['tests/main/engine/gpu/scan.test.ts', 'tests/main/engine/gpu/radix-sort.test.ts', 'tests/main/engine/mesh/kernels.test.ts', 'tests/main/engine/train/loss.test.ts', 'tests/main/engine/render/rasterizer.test.ts'];
const DEFAULT_LIMITS_FILES = ['tests/main/engine/gpu/scan.test.ts', 'tests/main/engine/gpu/radix-sort.test.ts', 'tests/main/engine/mesh/kernels.test.ts', 'tests/main/engine/mesh/ray-depth.test.ts', 'tests/main/engine/train/loss.test.ts', 'tests/main/engine/render/rasterizer.test.ts'];
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

if (built) {
  vitest('vitest', filters);
  if (!filters.length) {
    if (existsSync(SWIFTSHADER_ICD)) vitest('vitest-swiftshader', SWIFTSHADER_FILES, { ARGONAUT_BACKEND: 'swiftshader' });
    else {
      failed += 1;
      failures.push(`vitest-swiftshader: ${SWIFTSHADER_ICD} is missing (apt-get install chromium: its chromium-common ships SwiftShader)`);
    }
    vitest('vitest-webgpu-default-limits', DEFAULT_LIMITS_FILES, { ARGONAUT_TEST_LIMITS: 'default' });
  }
} else {
  failed += 1;
  failures.push('vitest: not run because the build failed');
}

if (failures.length) {
  process.stdout.write('\nFailures:\n');
  for (const f of failures) process.stdout.write(`  - ${f}\n`);
}
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(failed > 0 ? 1 : 0);
