import { contentSecurityPolicy } from '../../shared/security.js';
import { readStatic } from '../browser/static.js';

/**
 * Serves app://renderer/<path> from the built renderer folder with the strict CSP. Paths that
 * escape the folder get 404 (see resolveInside). Pure function of (folder, url) for tests.
 */
export async function appProtocolResponse(rendererDir: string, requestUrl: string): Promise<Response> {
  const url = new URL(requestUrl);
  const headers = { 'Content-Security-Policy': contentSecurityPolicy(), 'X-Content-Type-Options': 'nosniff' };
  if (url.host !== 'renderer') return new Response('not found', { status: 404, headers });
  const file = await readStatic(rendererDir, url.pathname);
  if (!file) return new Response('not found', { status: 404, headers });
  return new Response(new Uint8Array(file.body), { status: 200, headers: { ...headers, 'Content-Type': file.type } });
}
