import { describe, expect, it } from 'vitest';
import { isAllowedNavigation, isTrustedSender, secureWebPreferences } from '../../../main/app/security.js';
import { appProtocolResponse } from '../../../main/app/protocol.js';
import { contentSecurityPolicy } from '../../../shared/security.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

describe('renderer security settings', () => {
  it('sandboxes the renderer with context isolation and no Node', () => {
    const prefs = secureWebPreferences('/x/preload.cjs');
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false, allowRunningInsecureContent: false });
  });

  it('trusts only the top frame of app://renderer', () => {
    expect(isTrustedSender('app://renderer/index.html', true)).toBe(true);
    expect(isTrustedSender('app://renderer/index.html', false)).toBe(false);
    expect(isTrustedSender('https://example.com/', true)).toBe(false);
    expect(isTrustedSender('app://evil/index.html', true)).toBe(false);
    expect(isTrustedSender('file:///etc/passwd', true)).toBe(false);
    expect(isTrustedSender(undefined, true)).toBe(false);
    expect(isAllowedNavigation('http://127.0.0.1:1234/')).toBe(false);
  });

  it('has a CSP without remote content, inline scripts or eval', () => {
    const csp = contentSecurityPolicy();
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline'[^;]*script|https?:/);
    expect(csp).toContain("object-src 'none'");
  });

  it('serves app:// only from the renderer folder, with the CSP', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'argonaut-app-'));
    writeFileSync(path.join(dir, 'index.html'), '<p>hi</p>');
    writeFileSync(path.join(path.dirname(dir), 'outside.txt'), 'no');
    const ok = await appProtocolResponse(dir, 'app://renderer/index.html');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('<p>hi</p>');
    expect(ok.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    expect((await appProtocolResponse(dir, 'app://renderer/../outside.txt')).status).toBe(404);
    expect((await appProtocolResponse(dir, 'app://renderer/%2e%2e/outside.txt')).status).toBe(404);
    expect((await appProtocolResponse(dir, 'app://other/index.html')).status).toBe(404);
  });
});
