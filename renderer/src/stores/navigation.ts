import { defineStore } from 'pinia';
import { ref } from 'vue';

/** The studio's views, in navigation order. */
export const VIEWS = ['home', 'train', 'viewer', 'export', 'settings'] as const;
export type ViewName = (typeof VIEWS)[number];

export const VIEW_LABELS: Record<ViewName, string> = { home: 'Home', train: 'Train', viewer: 'Viewer', export: 'Export', settings: 'Settings' };

export function isViewName(value: string): value is ViewName {
  return (VIEWS as readonly string[]).includes(value);
}

/** The view named by a location hash (`#/train`), if any. */
export function viewFromHash(hash: string): ViewName | undefined {
  const name = hash.replace(/^#\/?/, '');
  return isViewName(name) ? name : undefined;
}

/**
 * Which view is shown. A small Pinia switcher instead of a router: the studio has five fixed
 * views and no deep links beyond `#/<view>`, which keeps reloads and the back button working.
 */
export const useNavigationStore = defineStore('navigation', () => {
  /** The view on screen. */
  const current = ref<ViewName>(viewFromHash(typeof location === 'undefined' ? '' : location.hash) ?? 'home');

  /** Shows a view and records it in the location hash (so back/forward and reloads keep it). */
  function go(view: ViewName) {
    current.value = view;
    if (typeof location !== 'undefined' && viewFromHash(location.hash) !== view) location.hash = `#/${view}`;
  }

  /** Follows back/forward navigation; returns the function that stops following. */
  function followHash(): () => void {
    const onHash = () => {
      const view = viewFromHash(location.hash);
      if (view) current.value = view;
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }

  return { current, go, followHash };
});
