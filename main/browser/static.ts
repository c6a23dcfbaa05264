import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.ico': 'image/x-icon',
};

/**
 * Resolves a URL path to a file strictly inside `root`: decoding, `..` segments, absolute paths,
 * NUL bytes and symlink-free prefix tricks (`/root-other`) all stay out. Returns undefined when
 * the request escapes or names nothing.
 */
export function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const rel = decoded.replace(/^\/+/, '') || 'index.html';
  const full = path.resolve(root, rel);
  const base = path.resolve(root);
  if (full !== base && !full.startsWith(base + path.sep)) return undefined;
  return full;
}

export async function readStatic(root: string, urlPath: string): Promise<{ body: Buffer; type: string } | undefined> {
  const file = resolveInside(root, urlPath);
  if (!file) return undefined;
  try {
    // A symbolic link inside the folder must not lead out of it either.
    const [realFile, realRoot] = await Promise.all([realpath(file), realpath(root)]);
    if (realFile !== realRoot && !realFile.startsWith(realRoot + path.sep)) return undefined;
    const s = await stat(realFile);
    if (!s.isFile()) return undefined;
    return { body: await readFile(realFile), type: TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream' };
  } catch {
    return undefined;
  }
}
