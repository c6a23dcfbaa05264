/**
 * The serializable error envelope that crosses every process boundary.
 *
 * Electron keeps only `message` of a thrown error and JSON drops class identity, so every
 * failure travels as `{ code, message, details }` and is rebuilt as an ArgonautError on the
 * receiving side. `code` is what callers branch on; `message` is for people and names the file,
 * the field and what was expected.
 */
export const ERROR_CODES = [
  'invalid_argument', // a request's arguments failed the contract's schema
  'bad_input', // a file or dataset the user gave us is malformed (CLI exit code 3)
  'not_found',
  'unknown_method',
  'unauthorized',
  'no_gpu', // no usable GPU adapter (CLI exit code 4)
  'device_lost',
  'cancelled', // interrupted by the user (CLI exit code 130)
  'busy',
  'host_crashed', // the engine host died while the call was in flight
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorEnvelope {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

export class ArgonautError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'ArgonautError';
    this.code = code;
    this.details = details;
  }

  toEnvelope(): ErrorEnvelope {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  static fromEnvelope(envelope: ErrorEnvelope): ArgonautError {
    return new ArgonautError(envelope.code, envelope.message, envelope.details);
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** Turns anything thrown into an envelope; unknown errors become `internal`. */
export function toErrorEnvelope(error: unknown): ErrorEnvelope {
  if (error instanceof ArgonautError) return error.toEnvelope();
  if (error && typeof error === 'object' && 'code' in error && isErrorCode((error as { code: unknown }).code)) {
    const e = error as { code: ErrorCode; message?: unknown; details?: unknown };
    return { code: e.code, message: String(e.message ?? e.code), ...(e.details === undefined ? {} : { details: e.details }) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message };
}

/** Shorthand for the most common failure: a user-supplied file is malformed. */
export function badInput(file: string, problem: string, details?: unknown): ArgonautError {
  return new ArgonautError('bad_input', `${file}: ${problem}`, { file, ...(details && typeof details === 'object' ? details : {}) });
}
