/**
 * app:// (Electron) and browser mode serve the renderer folder and nothing else: every path
 * trick, encoding and symbolic link that would lead out of it gets 404.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appProtocolResponse } from '../../main/app/protocol.js';
import { readStatic } from '../../main/browser/static.js';
import { contentSecurityPolicy } from '../../shared/security.js';

const base = mkdtempSync(path.join(tmpdir(), 'argonaut-protocol-'));
const renderer = path.join(base, 'renderer');
mkdirSync(path.join(renderer, 'assets'), { recursive: true });
writeFileSync(path.join(renderer, 'index.html'), '<p>ok</p>');
writeFileSync(path.join(renderer, 'assets', 'app.js'), 'ok()');
writeFileSync(path.join(base, 'secret.txt'), 'SECRET');
mkdirSync(path.join(base, 'renderer-evil'));
writeFileSync(path.join(base, 'renderer-evil', 'x.js'), 'SECRET');
symlinkSync(path.join(base, 'secret.txt'), path.join(renderer, 'assets', 'link.txt'));
symlinkSync(base, path.join(renderer, 'up'));

const ESCAPES = [
  '/../secret.txt',
  '/assets/../../secret.txt',
  '/%2e%2e/secret.txt',
  '/%2E%2E%2Fsecret.txt',
  '/assets/..%2f..%2fsecret.txt',
  '/..%5csecret.txt',
  '/assets%2f..%2f..%2fsecret.txt',
  '/%252e%252e/secret.txt', // double-encoded: decoded once, it is a literal name that does not exist
  '/../renderer-evil/x.js',
  '/%00',
  '/index.html%00.png',
  '/assets/link.txt', // a symbolic link to a file outside
  '/up/secret.txt', // a symbolic link to a folder outside
  `/${base}/secret.txt`,
  '/%2fetc%2fpasswd',
  '/%ZZ',
];

describe('the renderer folder cannot be escaped', () => {
  it('app:// serves the renderer with the CSP and refuses other hosts', async () => {
    const ok = await appProtocolResponse(renderer, 'app://renderer/assets/app.js');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    expect((await appProtocolResponse(renderer, 'app://other/index.html')).status).toBe(404);
    expect((await appProtocolResponse(renderer, 'app://renderer.evil/index.html')).status).toBe(404);
  });

  for (const attempt of ESCAPES) {
    it(`404 for ${attempt}`, async () => {
      let response: Response;
      try {
        response = await appProtocolResponse(renderer, `app://renderer${attempt}`);
      } catch {
        return; // a URL the platform refuses to parse never reaches the disk
      }
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('SECRET');
      expect(await readStatic(renderer, attempt)).toBeUndefined();
    });
  }
});
