// Lint = code quality + the process boundaries, enforced (not remembered):
//   main/engine   pure Node: never electron, never the renderer
//   renderer      browser only: never node:*, never engine code, never electron
//   shared        runtime-neutral: no node:*, electron, vue, webgpu, and nothing from main/ or renderer/
//   main/preload  only electron and nothing else of the app
//   electron      only main/app and main/preload import it
//   engine layers each folder of main/engine imports only the folders below it (ENGINE_LAYERS)
//   no cycles     no module imports a module that imports it back (import-x/no-cycle)
// tests/lint/boundaries.test.ts proves each rule fires.
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)].filter((m) => !m.startsWith('_'));
const electron = { name: 'electron', message: 'Only main/app and main/preload may import electron.' };
const aboveEngine = { group: ['**/renderer/**', '**/app/**', '**/preload/**', '**/browser/**', '**/supervisor/**', '**/host/**', '**/cli/**'], message: 'The engine is pure Node: it depends on nothing above it.' };

/**
 * The engine's layers (docs/architecture.md): for each folder of main/engine, the engine folders
 * it may import (shared/ and kernels/ always). Every other engine folder is refused, type imports
 * included. Computing (gpu, formats, render, dataset, train, mesh, edit) sits below recording
 * (project) and running (jobs); the capture pipeline writes datasets and knows nothing of training.
 */
export const ENGINE_LAYERS = {
  gpu: [],
  formats: [],
  render: ['gpu', 'formats'],
  dataset: ['formats'],
  sfm: ['gpu', 'dataset', 'formats'],
  // capture runs our SfM (sfm/, on the GPU) or COLMAP's
  capture: ['gpu', 'sfm', 'dataset', 'formats'],
  train: ['gpu', 'render', 'dataset', 'formats'],
  mesh: ['gpu', 'render', 'dataset', 'formats'],
  // edits of trained splats (selection, operations, cleanup): computing, below the project
  edit: ['gpu', 'render', 'dataset', 'formats'],
  project: ['gpu', 'render', 'dataset', 'capture', 'train', 'mesh', 'edit', 'formats'],
  // partitioned training: splits a project's scene into blocks, their inputs, block runs (in-process
  // or on the queue), the merge
  partition: ['gpu', 'render', 'dataset', 'capture', 'train', 'mesh', 'edit', 'formats', 'project'],
  jobs: ['gpu', 'render', 'dataset', 'capture', 'train', 'mesh', 'edit', 'formats', 'project', 'partition'],
};

function engineLayer(layer) {
  const allowed = ENGINE_LAYERS[layer];
  const refused = Object.keys(ENGINE_LAYERS).filter((other) => other !== layer && !allowed.includes(other));
  const may = allowed.length ? `only ${allowed.join(', ')}` : 'no other engine folder';
  const patterns = [aboveEngine];
  // Relative paths from main/engine/<layer>/..., at any depth: '../train/x.js', '../../engine/train/x.js'.
  if (refused.length) patterns.push({ regex: `^(\\.\\./)+(engine/)?(${refused.join('|')})(/|$)`, message: `main/engine/${layer} may import ${may} of the engine (its layers: ENGINE_LAYERS, docs/architecture.md).` });
  return { files: [`main/engine/${layer}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { paths: [electron], patterns }] } };
}

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'dist-app/**', 'test-output/**', '.gpu/**', '.gpu-data/**', 'bench/results/**'] },
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  {
    // No import cycles anywhere: a helper two modules share lives in its own module. Type-only
    // imports are erased at build time and do not count. Sources import `./x.js` for `./x.ts`.
    files: ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs', '**/*.vue'],
    plugins: { 'import-x': importX },
    // The cycle rule parses imported .vue files with the linted file's parser options: give it the
    // script parser the .vue block below uses.
    languageOptions: { parserOptions: { parser: tseslint.parser } },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.mts', '.js', '.mjs', '.vue', '.json'], extensionAlias: { '.js': ['.ts', '.js'], '.mjs': ['.mts', '.mjs'] } })],
      'import-x/extensions': ['.ts', '.mts', '.js', '.mjs', '.vue'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts'], 'vue-eslint-parser': ['.vue'] },
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['main/**/*.ts', 'shared/**/*.ts', 'tests/**/*.ts', 'bench/**/*.ts', 'scripts/**/*', 'kernels/**/*.ts'],
    ignores: ['main/app/**', 'main/preload/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [electron] }] },
  },
  {
    files: ['main/engine/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [electron], patterns: [aboveEngine] }] },
  },
  // After the block above: each replaces its rule options for its folder, and keeps them.
  ...Object.keys(ENGINE_LAYERS).map(engineLayer),
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [electron, ...nodeBuiltins.map((name) => ({ name, message: 'shared/ runs in every process: no Node built-ins.' })), { name: 'vue', message: 'shared/ has no UI.' }, { name: 'webgpu', message: 'shared/ has no GPU.' }],
        patterns: [{ group: ['**/main/**', '**/renderer/**', '../main/**', '../../main/**'], message: 'shared/ imports nothing from the processes.' }],
      }],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    ignores: ['renderer/vite.config.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'The renderer is sandboxed: it talks to main through the preload transport only.' }, { name: 'webgpu', message: 'The renderer never touches the engine GPU.' }, ...nodeBuiltins.map((name) => ({ name, message: 'The renderer has no Node.' }))],
        patterns: [{ group: ['**/main/**'], message: 'The renderer uses only shared/ and its own code; engine code is reached through the contract.' }],
      }],
    },
  },
  {
    files: ['main/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../*', '../../*'], message: 'The preload stays self-contained: electron only.' }] }],
    },
  },
);
