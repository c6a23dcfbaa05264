/**
 * Which engine services this build's contract declares, checked at run time, so views can say
 * honestly what is not there yet instead of showing controls that cannot work.
 *
 * `callDeclared` is the one bridge to methods the renderer expects before the contract has them
 * (docs/gui.md lists the expected names and shapes): it refuses with `unavailable` unless the
 * contract declares the method, and the gateway still validates every argument. Once a service
 * is in the contract its callers switch to the typed `client.api.<service>.<method>`.
 */
import { contract } from '../../../shared/contract/index.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { lookupMethod } from '../../../shared/rpc/runtime.js';
import type { StudioClient } from './client.js';

/** Services the GUI is built to use, and how views name them while they are missing. */
export const EXPECTED_SERVICES = {
  projects: "the engine's project service",
  train: "the engine's training service",
  export: "the engine's export service",
  settings: "the engine's settings service",
  edits: "the engine's edit service",
} as const;
export type ExpectedService = keyof typeof EXPECTED_SERVICES;

export function declares(service: string, method?: string): boolean {
  if (!Object.hasOwn(contract.services, service)) return false;
  return method === undefined || lookupMethod(contract, service, method) !== undefined;
}

/** The sentence a view shows where a service is missing. */
export function pendingNote(service: ExpectedService): string {
  return `Available once ${EXPECTED_SERVICES[service]} lands.`;
}

export function callDeclared<T = unknown>(client: StudioClient | undefined, service: ExpectedService, method: string, args: Record<string, unknown>): Promise<T> {
  if (!client) return Promise.reject(new ArgonautError('unavailable', 'not connected to the engine'));
  if (!declares(service, method)) return Promise.reject(new ArgonautError('unavailable', `${service}.${method}: ${pendingNote(service)}`));
  return client.request(service, method, args) as Promise<T>;
}
