/**
 * Renders a component to HTML in Node with Vue's server renderer (no DOM needed), and small
 * helpers to query that HTML. Interactions are tested in Chromium (tests/renderer/*.browser.test.ts).
 */
import { createPinia } from 'pinia';
import { createSSRApp, h, type Component } from 'vue';
import { renderToString } from 'vue/server-renderer';

export async function renderHtml(component: Component, props: Record<string, unknown> = {}): Promise<string> {
  const app = createSSRApp({ render: () => h(component, props) });
  app.use(createPinia());
  return renderToString(app);
}

/** Every element opening tag that carries `attribute="value"` (or the attribute at all). */
export function tagsWith(html: string, attribute: string, value?: string): string[] {
  const needle = value === undefined ? new RegExp(`<[^>]*\\s${attribute}(=("[^"]*"))?[\\s>/][^>]*>?`, 'g') : new RegExp(`<[^>]*\\s${attribute}="${escape(value)}"[^>]*>`, 'g');
  return html.match(needle) ?? [];
}

/** The HTML of the first element whose opening tag has `attribute="value"`, up to its matching close tag. */
export function elementWith(html: string, attribute: string, value: string): string | undefined {
  const open = new RegExp(`<([a-z0-9-]+)[^>]*\\s${attribute}="${escape(value)}"[^>]*>`).exec(html);
  if (!open) return undefined;
  const tag = open[1];
  let depth = 0;
  const re = new RegExp(`<(/?)${tag}\\b[^>]*>`, 'g');
  re.lastIndex = open.index;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    depth += m[1] ? -1 : 1;
    if (depth === 0) return html.slice(open.index, m.index + m[0].length);
  }
  return html.slice(open.index);
}

export function attributeOf(tag: string, attribute: string): string | undefined {
  return new RegExp(`\\s${attribute}="([^"]*)"`).exec(tag)?.[1];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Text as Vue's server renderer escapes it in attributes and content. */
export function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
