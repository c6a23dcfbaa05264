import { defineStore } from 'pinia';
import { ref, watch } from 'vue';

export type Theme = 'dark' | 'light';
export const THEME_STORAGE_KEY = 'argonaut.theme';

/** The stored theme, or dark when nothing valid is stored (or storage is unavailable). */
export function readStoredTheme(storage: Pick<Storage, 'getItem'> | undefined): Theme {
  try {
    const value = storage?.getItem(THEME_STORAGE_KEY);
    return value === 'light' ? 'light' : 'dark';
  } catch {
    return 'dark';
  }
}

/** Studio preferences kept in this browser profile (localStorage): the colour theme. */
export const useSettingsStore = defineStore('settings', () => {
  const storage = typeof localStorage === 'undefined' ? undefined : localStorage;
  /** Colour theme; applied as `data-theme` on <html> and persisted. */
  const theme = ref<Theme>(readStoredTheme(storage));

  function apply(value: Theme) {
    if (typeof document !== 'undefined') document.documentElement.dataset.theme = value;
  }

  watch(
    theme,
    (value) => {
      apply(value);
      try {
        storage?.setItem(THEME_STORAGE_KEY, value);
      } catch {
        // storage full or disabled: the theme still applies for this session
      }
    },
    { immediate: true },
  );

  /** Sets the theme. */
  function setTheme(value: Theme) {
    theme.value = value;
  }

  return { theme, setTheme };
});
