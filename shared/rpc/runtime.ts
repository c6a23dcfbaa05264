import type { z } from 'zod';
import { ArgonautError, toErrorEnvelope } from './errors.js';
import type { CallContext, ClientOf, ContractDef, EventDefs, EventPayload, MethodDef, ServiceDefs, ServiceImpl } from './define.js';
import { isRpcMessage, type RequestMessage, type RpcMessage } from './messages.js';
import type { Transport } from './transport.js';

/** Finds a method's definition, or undefined for names the contract does not declare. */
export function lookupMethod(contract: ContractDef, service: string, method: string): MethodDef | undefined {
  if (!Object.hasOwn(contract.services, service)) return undefined;
  const methods = contract.services[service];
  return Object.hasOwn(methods, method) ? methods[method] : undefined;
}

/** Formats zod issues as `field: problem` lines for an invalid_argument error. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Parses a request's arguments against the contract. Throws `unknown_method` or
 * `invalid_argument`; never returns unvalidated data.
 */
export function parseRequestArgs(contract: ContractDef, request: Pick<RequestMessage, 'service' | 'method' | 'args'>): unknown {
  const def = lookupMethod(contract, request.service, request.method);
  if (!def) throw new ArgonautError('unknown_method', `no method ${request.service}.${request.method} in the contract`);
  const parsed = def.args.safeParse(request.args ?? {});
  if (!parsed.success) {
    throw new ArgonautError(
      'invalid_argument',
      `${request.service}.${request.method}: ${describeIssues(parsed.error.issues)}`,
      { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
    );
  }
  return parsed.data;
}

export interface ServeOptions {
  /** Name of the peer, passed to services as `context.caller`. */
  caller: string;
  /** Extra gate run before schema validation (e.g. Electron's sender check). */
  authorize?: (request: RequestMessage) => void;
  /** Called when a service throws something that is not an ArgonautError. */
  onInternalError?: (error: unknown, request: RequestMessage) => void;
}

export interface Server<E extends EventDefs> {
  emit<N extends keyof E & string>(name: N, payload: EventPayload<E, N>): void;
  close(): void;
}

/**
 * Serves a contract over one transport: every request is authorized, validated against its
 * schema, and only then handed to the implementation. Errors go back as envelopes.
 */
export function serve<S extends ServiceDefs, E extends EventDefs>(
  contract: ContractDef<S, E>,
  impl: ServiceImpl<S>,
  transport: Transport,
  options: ServeOptions,
): Server<E> {
  const abort = new AbortController();
  const context: CallContext = { caller: options.caller, signal: abort.signal };

  const handle = async (request: RequestMessage) => {
    try {
      options.authorize?.(request);
      const args = parseRequestArgs(contract, request);
      const service = (impl as Record<string, Record<string, (a: unknown, c: CallContext) => Promise<unknown>>>)[request.service];
      const fn = service?.[request.method];
      if (typeof fn !== 'function') throw new ArgonautError('unknown_method', `${request.service}.${request.method} is declared but not served here`);
      const result = await fn.call(service, args, context);
      safeSend(transport, { kind: 'res', id: request.id, ok: true, result });
    } catch (error) {
      if (!(error instanceof ArgonautError)) options.onInternalError?.(error, request);
      safeSend(transport, { kind: 'res', id: request.id, ok: false, error: toErrorEnvelope(error) });
    }
  };

  const off = transport.onMessage((message) => {
    // Transports check shapes too; the server does not rely on it (a malformed message is dropped).
    if (isRpcMessage(message) && message.kind === 'req') void handle(message);
  });
  const offClose = transport.onClose(() => abort.abort());

  return {
    emit(name, payload) {
      safeSend(transport, { kind: 'evt', name, payload });
    },
    close() {
      off();
      offClose();
      abort.abort();
    },
  };
}

function safeSend(transport: Transport, message: RpcMessage) {
  try {
    transport.send(message);
  } catch {
    // The peer is gone; nothing to tell it.
  }
}

export interface Client<S extends ServiceDefs, E extends EventDefs> {
  readonly api: ClientOf<S>;
  on<N extends keyof E & string>(name: N, handler: (payload: EventPayload<E, N>) => void): () => void;
  /** Rejects every pending call (with `host_crashed` or the given error) and stops listening. */
  close(error?: ArgonautError): void;
  /** Sends a request without client-side checks; used by relays that forward raw requests. */
  request(service: string, method: string, args: unknown): Promise<unknown>;
}

/**
 * A typed proxy over a transport: `client.api.system.info({})`. Arguments are validated on the
 * serving side (the side that trusts nothing); the client only shapes calls and rebuilds errors.
 */
export function createClient<S extends ServiceDefs, E extends EventDefs>(contract: ContractDef<S, E>, transport: Transport): Client<S, E> {
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let closedWith: ArgonautError | undefined;

  const offMessage = transport.onMessage((message) => {
    if (message.kind === 'res') {
      const entry = pending.get(message.id);
      if (!entry) return;
      pending.delete(message.id);
      if (message.ok) entry.resolve(message.result);
      else entry.reject(ArgonautError.fromEnvelope(message.error));
    } else if (message.kind === 'evt') {
      for (const handler of listeners.get(message.name) ?? []) handler(message.payload);
    }
  });
  const offClose = transport.onClose((reason) => close(new ArgonautError('host_crashed', `connection closed: ${reason}`)));

  function close(error = new ArgonautError('unavailable', 'client closed')) {
    if (closedWith) return;
    closedWith = error;
    offMessage();
    offClose();
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
  }

  function request(service: string, methodName: string, args: unknown): Promise<unknown> {
    if (closedWith) return Promise.reject(closedWith);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      try {
        transport.send({ kind: 'req', id, service, method: methodName, args: args ?? {} });
      } catch (error) {
        pending.delete(id);
        reject(new ArgonautError('unavailable', `could not send ${service}.${methodName}: ${(error as Error).message}`));
      }
    });
  }

  const api = {} as Record<string, Record<string, (args: unknown) => Promise<unknown>>>;
  for (const service of Object.keys(contract.services)) {
    api[service] = {};
    for (const methodName of Object.keys(contract.services[service])) {
      api[service][methodName] = (args: unknown) => request(service, methodName, args);
    }
  }

  return {
    api: api as ClientOf<S>,
    on(name, handler) {
      let set = listeners.get(name);
      if (!set) listeners.set(name, (set = new Set()));
      set.add(handler as (payload: unknown) => void);
      return () => set.delete(handler as (payload: unknown) => void);
    },
    close,
    request,
  };
}

/**
 * An implementation that forwards every method to another client. Electron main and the
 * browser-mode server use it to relay renderer calls to the engine host after validating them
 * (serve() validates before the forwarder ever runs; the host validates again).
 */
export function forwardingImpl<S extends ServiceDefs>(contract: ContractDef<S>, upstream: () => { request: Client<S, EventDefs>['request'] }): ServiceImpl<S> {
  const impl = {} as Record<string, Record<string, (args: unknown) => Promise<unknown>>>;
  for (const service of Object.keys(contract.services)) {
    impl[service] = {};
    for (const methodName of Object.keys(contract.services[service])) {
      impl[service][methodName] = (args: unknown) => upstream().request(service, methodName, args);
    }
  }
  return impl as ServiceImpl<S>;
}
