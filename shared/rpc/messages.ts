import type { ErrorEnvelope } from './errors.js';

/**
 * Wire messages of the RPC runtime. Every transport carries exactly these objects; binary data
 * (ArrayBuffer / typed arrays) may appear anywhere inside `args`, `result` or `payload` and each
 * transport moves it without JSON (structured clone, or a binary WebSocket frame).
 */
export interface RequestMessage {
  kind: 'req';
  id: number;
  service: string;
  method: string;
  args: unknown;
}

export interface ResponseOk {
  kind: 'res';
  id: number;
  ok: true;
  result: unknown;
}

export interface ResponseErr {
  kind: 'res';
  id: number;
  ok: false;
  error: ErrorEnvelope;
}

export interface EventMessage {
  kind: 'evt';
  name: string;
  payload: unknown;
}

export type RpcMessage = RequestMessage | ResponseOk | ResponseErr | EventMessage;

export function isRpcMessage(value: unknown): value is RpcMessage {
  if (!value || typeof value !== 'object') return false;
  const m = value as Record<string, unknown>;
  switch (m.kind) {
    case 'req':
      return typeof m.id === 'number' && typeof m.service === 'string' && typeof m.method === 'string';
    case 'res':
      return typeof m.id === 'number' && typeof m.ok === 'boolean';
    case 'evt':
      return typeof m.name === 'string';
    default:
      return false;
  }
}
