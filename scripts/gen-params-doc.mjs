// Writes docs/parameters.md from the parameter registry (shared/params/doc.ts renders it).
//   node scripts/gen-params-doc.mjs          write the file
//   node scripts/gen-params-doc.mjs --check  exit 1 when the file is not current
// The registry is TypeScript: esbuild bundles the renderer into memory and it is imported from there.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = await build({ entryPoints: [path.join(root, 'shared/params/doc.ts')], bundle: true, write: false, format: 'esm', platform: 'neutral', logLevel: 'error' });
const source = bundle.outputFiles[0].text;
const { parametersMarkdown, PARAMETERS_DOC } = await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
const file = path.join(root, PARAMETERS_DOC);
const wanted = parametersMarkdown();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // a missing file is simply not current
  }
  if (current !== wanted) {
    console.error(`${PARAMETERS_DOC} is not current: run node scripts/gen-params-doc.mjs`);
    process.exit(1);
  }
  console.log(`${PARAMETERS_DOC} is current`);
} else {
  writeFileSync(file, wanted);
  console.log(`wrote ${PARAMETERS_DOC} (${wanted.split('\n').length} lines)`);
}
