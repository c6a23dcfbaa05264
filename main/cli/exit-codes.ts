import type { ErrorCode } from '../../shared/rpc/errors.js';

/** The CLI's exit codes (a stable contract: scripts and tests depend on them). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  badInput: 3,
  noGpu: 4,
  interrupted: 130,
} as const;

export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'invalid_argument':
    case 'unknown_method':
      return EXIT.usage;
    case 'bad_input':
    case 'not_found':
      return EXIT.badInput;
    case 'no_gpu':
      return EXIT.noGpu;
    case 'cancelled':
      return EXIT.interrupted;
    default:
      return EXIT.failure;
  }
}
