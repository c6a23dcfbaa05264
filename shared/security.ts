/**
 * The renderer's Content-Security-Policy, one definition for Electron (custom protocol) and
 * browser mode (HTTP header). No remote content, no inline scripts, no eval.
 * `connect` lists the extra origins the page may talk to (browser mode's WebSocket).
 */
export function contentSecurityPolicy(connect: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Vue's scoped styles and Babylon's inspector-free UI set style attributes at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self' ${connect.join(' ')}`.trim(),
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
