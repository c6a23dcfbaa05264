import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nextTick } from 'vue';
import { readStoredTheme, THEME_STORAGE_KEY, useSettingsStore } from '../../../renderer/src/stores/settings.js';

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

beforeEach(() => setActivePinia(createPinia()));
afterEach(() => vi.unstubAllGlobals());

describe('settings store', () => {
  it('reads the stored theme, dark when nothing valid is stored or storage throws', () => {
    expect(readStoredTheme(memoryStorage({ [THEME_STORAGE_KEY]: 'light' }))).toBe('light');
    expect(readStoredTheme(memoryStorage({ [THEME_STORAGE_KEY]: 'purple' }))).toBe('dark');
    expect(readStoredTheme(undefined)).toBe('dark');
    expect(
      readStoredTheme({
        getItem: () => {
          throw new Error('SecurityError');
        },
      }),
    ).toBe('dark');
  });

  it('persists the chosen theme and applies it to the document', async () => {
    const storage = memoryStorage({ [THEME_STORAGE_KEY]: 'light' });
    const root = { dataset: {} as Record<string, string> };
    vi.stubGlobal('localStorage', storage);
    vi.stubGlobal('document', { documentElement: root });
    const settings = useSettingsStore();
    expect(settings.theme).toBe('light');
    expect(root.dataset.theme).toBe('light');
    settings.setTheme('dark');
    await nextTick();
    expect(storage.data.get(THEME_STORAGE_KEY)).toBe('dark');
    expect(root.dataset.theme).toBe('dark');
  });
});
