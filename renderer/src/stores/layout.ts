import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useLogStore } from './logs.js';

/** Shell layout state: whether the log drawer is open. */
export const useLayoutStore = defineStore('layout', () => {
  /** The log drawer above the status bar. */
  const logOpen = ref(false);

  function openLog() {
    logOpen.value = true;
    useLogStore().markSeen();
  }

  function toggleLog() {
    if (logOpen.value) logOpen.value = false;
    else openLog();
  }

  return { logOpen, openLog, toggleLog };
});
