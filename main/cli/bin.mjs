#!/usr/bin/env node
// `argonaut` on PATH (npm bin). Runs the built CLI bundle; npm install builds it.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bundle = path.join(root, 'out', 'cli', 'index.mjs');
if (!existsSync(bundle)) {
  process.stderr.write(`argonaut: not built yet (${bundle} is missing). Run \`npm install\` or \`npm run build\` in ${root}.\n`);
  process.exit(1);
}
await import(pathToFileURL(bundle).href);
