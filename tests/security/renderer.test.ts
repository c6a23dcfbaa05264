/** The renderer runs sandboxed, isolated, without Node, under a strict Content-Security-Policy. */
import { describe, expect, it } from 'vitest';
import { isAllowedNavigation, isTrustedSender, secureWebPreferences } from '../../main/app/security.js';
import { contentSecurityPolicy } from '../../shared/security.js';

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
}

describe('renderer security', () => {
  it('every window is sandboxed and context-isolated, with no Node anywhere and no webviews', () => {
    expect(secureWebPreferences('/app/preload.cjs')).toEqual({
      preload: '/app/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      webviewTag: false,
      spellcheck: false,
    });
  });

  for (const [mode, csp] of [['Electron (app://)', contentSecurityPolicy()], ['browser mode', contentSecurityPolicy(['ws://127.0.0.1:5173'])]] as const) {
    it(`the CSP of ${mode} allows only the app's own scripts and nothing remote`, () => {
      const d = directives(csp);
      expect(d.get('default-src')).toEqual(["'self'"]);
      expect(d.get('script-src')).toEqual(["'self'"]); // no inline scripts, no eval, no CDN
      expect(d.get('object-src')).toEqual(["'none'"]);
      expect(d.get('base-uri')).toEqual(["'none'"]);
      expect(d.get('form-action')).toEqual(["'none'"]);
      expect(d.get('frame-ancestors')).toEqual(["'none'"]);
      expect(d.get('img-src')).toEqual(["'self'", 'data:', 'blob:']);
      expect(d.get('connect-src')).toEqual(mode === 'browser mode' ? ["'self'", 'ws://127.0.0.1:5173'] : ["'self'"]);
      expect(csp).not.toMatch(/unsafe-eval|wasm-unsafe-eval|\*|https?:\/\/(?!127\.0\.0\.1)/);
      for (const [name, values] of d) if (name !== 'style-src') expect(values, name).not.toContain("'unsafe-inline'");
    });
  }

  it('only the top frame of app://renderer may call the engine or be navigated to', () => {
    for (const url of ['app://renderer/index.html', 'app://renderer/#/train']) expect(isTrustedSender(url, true)).toBe(true);
    for (const [url, top] of [
      ['app://renderer/index.html', false], ['app://renderer.evil/index.html', true], ['app://evil/index.html', true], ['file:///etc/passwd', true],
      ['http://127.0.0.1:1234/', true], ['https://example.com/', true], ['javascript:alert(1)', true], ['data:text/html,x', true], ['', true], ['not a url', true],
    ] as const) {
      expect(isTrustedSender(url, top), url).toBe(false);
      if (top) expect(isAllowedNavigation(url), url).toBe(false);
    }
  });
});
