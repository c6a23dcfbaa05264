/**
 * What to do about an error, per error code (shared/rpc/errors.ts). Banners show the engine's
 * message (which names the file, the field and what was expected) and this suggestion under it.
 */
import type { ErrorCode } from '../../shared/rpc/errors.js';
import type { ViewName } from './stores/navigation.js';

export interface Suggestion {
  /** One sentence: what the user can do now. */
  text: string;
  /** A view that helps, offered as a button. */
  view?: { name: ViewName; label: string };
  /** Whether opening the log console helps. */
  showLog?: boolean;
}

const SUGGESTIONS: Record<ErrorCode, Suggestion> = {
  invalid_argument: { text: 'A value was refused: correct the field the message names and try again.' },
  bad_input: { text: 'The file named above is malformed or unsupported: check it, re-export it, or pick another one.' },
  not_found: { text: 'The file or project is not where it was: open it again from its new location.', view: { name: 'home', label: 'Go to Home' } },
  unknown_method: { text: 'The studio and the engine are different versions: restart the studio.' },
  unauthorized: { text: 'This page lost its session: open the URL printed by `argonaut --browser` again.' },
  no_gpu: {
    text: 'No usable GPU adapter: install your GPU driver (Vulkan, Metal or D3D12), or Mesa for the CPU fallback (libegl1 libegl-mesa0 libgl1-mesa-dri).',
    view: { name: 'settings', label: 'GPU settings' },
  },
  device_lost: { text: 'The GPU was reset. The engine restarts itself with a fresh device; jobs resume from their last checkpoint.', showLog: true },
  cancelled: { text: 'Stopped at your request; nothing else to do.' },
  busy: { text: 'Another job is running: wait for it to finish or stop it.', view: { name: 'train', label: 'Go to Train' } },
  host_crashed: { text: 'The engine stopped unexpectedly and is being restarted: try again once the status bar says ready.', showLog: true },
  unavailable: { text: 'The engine cannot be reached or does not offer this yet: check the status bar, or restart the studio.', showLog: true },
  internal: { text: 'An unexpected engine error: the log has the details; please report it with the log.', showLog: true },
};

export function suggestionFor(code: string): Suggestion {
  return Object.hasOwn(SUGGESTIONS, code) ? SUGGESTIONS[code as ErrorCode] : { text: 'The log may have more details.', showLog: true };
}

/** A short human title per code for the banner's heading. */
export function titleFor(code: string): string {
  const titles: Partial<Record<ErrorCode, string>> = {
    invalid_argument: 'Invalid value',
    bad_input: 'Unreadable input',
    not_found: 'Not found',
    no_gpu: 'No usable GPU',
    device_lost: 'GPU device lost',
    cancelled: 'Cancelled',
    busy: 'Engine busy',
    host_crashed: 'Engine crashed',
    unavailable: 'Unavailable',
    internal: 'Engine error',
    unauthorized: 'Not authorized',
    unknown_method: 'Version mismatch',
  };
  return titles[code as ErrorCode] ?? 'Error';
}
