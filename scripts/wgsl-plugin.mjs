// Imports kernels/*.wgsl as strings: an esbuild plugin and a Vite/Vitest plugin, one definition.
import { readFile } from 'node:fs/promises';

export const wgslEsbuild = {
  name: 'wgsl',
  setup(build) {
    build.onLoad({ filter: /\.wgsl$/ }, async (args) => ({ contents: await readFile(args.path, 'utf8'), loader: 'text' }));
  },
};

export function wgslVite() {
  return {
    name: 'wgsl',
    transform(code, id) {
      if (id.endsWith('.wgsl')) return { code: `export default ${JSON.stringify(code)};`, map: null };
      return null;
    },
  };
}
