// Lint = code quality + the process boundaries, enforced (not remembered):
//   main/engine   pure Node: never electron, never the renderer
//   renderer      browser only: never node:*, never engine code, never electron
//   shared        runtime-neutral: no node:*, electron, vue, webgpu, and nothing from main/ or renderer/
//   main/preload  only electron and nothing else of the app
//   electron      only main/app and main/preload import it
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)].filter((m) => !m.startsWith('_'));
const electron = { name: 'electron', message: 'Only main/app and main/preload may import electron.' };

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
    files: ['main/**/*.ts', 'shared/**/*.ts', 'tests/**/*.ts', 'bench/**/*.ts', 'scripts/**/*', 'kernels/**/*.ts'],
    ignores: ['main/app/**', 'main/preload/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [electron] }] },
  },
  {
    files: ['main/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [electron],
        patterns: [{ group: ['**/renderer/**', '**/app/**', '**/preload/**', '**/browser/**', '**/supervisor/**', '**/host/**', '**/cli/**'], message: 'The engine is pure Node: it depends on nothing above it.' }],
      }],
    },
  },
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
