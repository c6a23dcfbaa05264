// `npm test`: build, lint (incl. the process-boundary rules), type-check (tsc + vue-tsc), then every
// vitest test (unit, GPU parity on this machine's adapter, end-to-end). Ends with one plain line
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

const report = path.join(root, 'test-output', 'vitest.json');
mkdirSync(path.dirname(report), { recursive: true });
rmSync(report, { force: true });
if (built) {
  process.stdout.write('\n== vitest\n');
  const result = spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...filters], { cwd: root, stdio: 'inherit', env: process.env });
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    passed += json.numPassedTests;
    failed += json.numFailedTests;
    skipped += json.numPendingTests + (json.numTodoTests ?? 0);
    for (const file of json.testResults) for (const t of file.assertionResults) if (t.status === 'failed') failures.push(`${path.relative(root, file.name)} > ${t.fullName}`);
    // Files that failed to load and unhandled errors fail the run without failing a test.
    const broken = json.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((t) => t.status === 'failed'));
    for (const f of broken) failures.push(`${path.relative(root, f.name)}: ${String(f.message).split('\n')[0]}`);
    failed += broken.length;
    if (result.status !== 0 && json.numFailedTests === 0 && broken.length === 0) {
      failed += 1;
      failures.push(`vitest exited with ${result.status} (unhandled errors)`);
    }
  } else {
    failed += 1;
    failures.push(`vitest produced no report (exit ${result.status ?? result.signal})`);
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
