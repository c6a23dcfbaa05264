/**
 * `v-tooltip="text"`: a small tooltip shown on hover and keyboard focus. One fixed-position element
 * in <body>, so scrolling panels never clip it (a CSS ::after tooltip would be). The text is also
 * set as aria-description for screen readers. Multi-line text keeps its line breaks.
 */
import type { Directive } from 'vue';

let tip: HTMLDivElement | undefined;
let owner: HTMLElement | undefined;
const texts = new WeakMap<HTMLElement, string>();
const cleanups = new WeakMap<HTMLElement, () => void>();

function tipElement(): HTMLDivElement {
  if (!tip) {
    tip = document.createElement('div');
    tip.className = 'tooltip';
    tip.setAttribute('role', 'tooltip');
    tip.hidden = true;
    document.body.appendChild(tip);
  }
  return tip;
}

function show(el: HTMLElement): void {
  const text = texts.get(el);
  if (!text) return;
  const t = tipElement();
  owner = el;
  t.textContent = text;
  t.hidden = false;
  const r = el.getBoundingClientRect();
  const w = t.offsetWidth;
  const h = t.offsetHeight;
  let left = r.left + r.width / 2 - w / 2;
  left = Math.max(8, Math.min(left, window.innerWidth - w - 8));
  let top = r.bottom + 6;
  if (top + h > window.innerHeight - 8) top = r.top - h - 6;
  t.style.left = `${Math.round(left)}px`;
  t.style.top = `${Math.round(Math.max(8, top))}px`;
}

function hide(el: HTMLElement): void {
  if (owner !== el || !tip) return;
  tip.hidden = true;
  owner = undefined;
}

export const vTooltip: Directive<HTMLElement, string | undefined> = {
  mounted(el, binding) {
    texts.set(el, binding.value ?? '');
    if (binding.value) el.setAttribute('aria-description', binding.value);
    const onShow = () => show(el);
    const onHide = () => hide(el);
    el.addEventListener('mouseenter', onShow);
    el.addEventListener('focus', onShow);
    el.addEventListener('mouseleave', onHide);
    el.addEventListener('blur', onHide);
    cleanups.set(el, () => {
      el.removeEventListener('mouseenter', onShow);
      el.removeEventListener('focus', onShow);
      el.removeEventListener('mouseleave', onHide);
      el.removeEventListener('blur', onHide);
    });
  },
  updated(el, binding) {
    texts.set(el, binding.value ?? '');
    if (binding.value) el.setAttribute('aria-description', binding.value);
    if (owner === el) show(el);
  },
  beforeUnmount(el) {
    hide(el);
    cleanups.get(el)?.();
  },
  getSSRProps(binding) {
    return binding.value ? { 'aria-description': binding.value } : {};
  },
};
