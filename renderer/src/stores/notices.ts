import { defineStore } from 'pinia';
import { ref } from 'vue';
import { toErrorEnvelope, type ErrorEnvelope } from '../../../shared/rpc/errors.js';
import type { StudioClient } from '../api/client.js';
import type { ViewName } from './navigation.js';

/** What a banner shows: an error envelope, whose code may be one the engine added later. */
export interface NoticeError {
  code: ErrorEnvelope['code'] | (string & {});
  message: string;
  details?: unknown;
  /** What to do, when the reporter knows better than the generic advice for the code. */
  suggestion?: string;
}

/** Anything thrown or received as an envelope; unknown shapes become `internal`. */
export function asNoticeError(error: unknown): NoticeError {
  if (error && typeof error === 'object' && typeof (error as NoticeError).code === 'string' && typeof (error as NoticeError).message === 'string') {
    const e = error as NoticeError;
    return {
      code: e.code,
      message: e.message,
      ...(e.details === undefined ? {} : { details: e.details }),
      ...(typeof e.suggestion === 'string' ? { suggestion: e.suggestion } : {}),
    };
  }
  return toErrorEnvelope(error);
}

/** An error shown as a banner where it happened. */
export interface Notice extends NoticeError {
  id: number;
  /** The view it belongs to; `global` ones show above every view. */
  scope: ViewName | 'global';
  job?: string;
  timeMs: number;
}

/**
 * Errors to show to the user: failed calls (reported by the code that made them, with the view
 * they belong to) and the engine's `error` / `deviceLost` events. Job errors go to Train, the
 * rest are global. Identical consecutive errors are merged, not stacked.
 */
export const useNoticeStore = defineStore('notices', () => {
  /** Newest last. */
  const notices = ref<Notice[]>([]);
  let nextId = 1;

  /** Shows an error (anything thrown, or an envelope) in a view. */
  function report(error: unknown, scope: Notice['scope'], job?: string): Notice {
    const envelope = asNoticeError(error);
    const last = notices.value.at(-1);
    if (last && last.scope === scope && last.code === envelope.code && last.message === envelope.message) return last;
    const notice: Notice = { ...envelope, id: nextId++, scope, timeMs: Date.now(), ...(job ? { job } : {}) };
    notices.value = [...notices.value, notice];
    return notice;
  }

  function dismiss(id: number) {
    notices.value = notices.value.filter((n) => n.id !== id);
  }

  /** Notices of one scope (and the global ones when asked). */
  function forScope(scope: Notice['scope']): Notice[] {
    return notices.value.filter((n) => n.scope === scope);
  }

  /** Follows the engine's `error` and `deviceLost` events. */
  function attach(client: StudioClient) {
    client.on('error', (e) => report({ code: e.code, message: e.message, details: e.details }, e.job ? 'train' : 'global', e.job));
    client.on('deviceLost', (e) => report({ code: 'device_lost', message: `The GPU device was lost (${e.reason}): ${e.message}` }, 'global'));
  }

  return { notices, report, dismiss, forScope, attach };
});
