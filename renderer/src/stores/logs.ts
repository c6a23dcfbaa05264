import { defineStore } from 'pinia';
import { computed, ref, shallowRef, triggerRef } from 'vue';
import type { StudioClient } from '../api/client.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogEntry {
  /** Increasing per entry; a stable list key. */
  id: number;
  level: LogLevel;
  message: string;
  /** Who wrote it: `gpu`, `host`, `engine`, ... or `studio` for the renderer's own lines. */
  source: string;
  timeMs: number;
}

/** Most entries kept; older ones are dropped first. */
export const LOG_CAPACITY = 2000;

export function levelRank(level: LogLevel): number {
  return LOG_LEVELS.indexOf(level);
}

/**
 * The engine's `log` events plus the studio's own notable lines (connection, host restarts), in
 * a bounded list. Entries are kept in a shallowRef'd array mutated in place (no deep proxies
 * for thousands of lines); `triggerRef` tells readers it changed.
 */
export const useLogStore = defineStore('logs', () => {
  /** Oldest first, at most LOG_CAPACITY. */
  const entries = shallowRef<LogEntry[]>([]);
  /** Lowest level shown by the console. */
  const minLevel = ref<LogLevel>('info');
  /** Warnings and errors that arrived since the console was last looked at. */
  const unseenWarnings = ref(0);
  const unseenErrors = ref(0);
  /** Entries dropped because of the capacity. */
  const dropped = ref(0);
  let nextId = 1;

  /** Entries at or above minLevel. */
  const visible = computed(() => entries.value.filter((e) => levelRank(e.level) >= levelRank(minLevel.value)));

  /** Appends an entry (the oldest go when full). */
  function add(entry: Omit<LogEntry, 'id'>) {
    const list = entries.value;
    list.push({ ...entry, id: nextId++ });
    if (list.length > LOG_CAPACITY) {
      const excess = list.length - LOG_CAPACITY;
      list.splice(0, excess);
      dropped.value += excess;
    }
    if (entry.level === 'warn') unseenWarnings.value++;
    if (entry.level === 'error') unseenErrors.value++;
    triggerRef(entries);
  }

  /** A line from the studio itself. */
  function studio(level: LogLevel, message: string) {
    add({ level, message, source: 'studio', timeMs: Date.now() });
  }

  /** The console was opened: nothing is unseen any more. */
  function markSeen() {
    unseenWarnings.value = 0;
    unseenErrors.value = 0;
  }

  function clear() {
    entries.value = [];
    dropped.value = 0;
    markSeen();
  }

  /** Follows the engine's `log` events and the host's state changes. */
  function attach(client: StudioClient) {
    client.on('log', (e) => add(e));
    client.on('host', (e) => {
      const level: LogLevel = e.state === 'crashed' ? 'error' : e.state === 'restarting' ? 'warn' : 'info';
      studio(level, `engine host ${e.state}${e.reason ? `: ${e.reason}` : ''}${e.restarts ? ` (${e.restarts} restart${e.restarts === 1 ? '' : 's'})` : ''}`);
    });
  }

  return { entries, minLevel, unseenWarnings, unseenErrors, dropped, visible, add, studio, markSeen, clear, attach };
});
