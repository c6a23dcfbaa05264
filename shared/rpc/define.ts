import type { z } from 'zod';

/**
 * The shape of a contract: services of async methods (each with a zod schema for its argument
 * object and for its result) plus named events (each with a zod schema for its payload).
 * Clients and servers are typed from the same declaration, so nothing is written twice.
 */
export interface MethodDef<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly args: A;
  readonly result: R;
  readonly description: string;
}

export type ServiceDefs = Record<string, Record<string, MethodDef>>;
export type EventDefs = Record<string, z.ZodType>;

export interface ContractDef<S extends ServiceDefs = ServiceDefs, E extends EventDefs = EventDefs> {
  readonly services: S;
  readonly events: E;
}

export function method<A extends z.ZodType, R extends z.ZodType>(args: A, result: R, description: string): MethodDef<A, R> {
  return { args, result, description };
}

export function defineContract<S extends ServiceDefs, E extends EventDefs>(contract: ContractDef<S, E>): ContractDef<S, E> {
  return contract;
}

/** What a caller passes: the schema's input type. */
export type ArgsOf<M extends MethodDef> = z.input<M['args']>;
/** What a caller gets back. */
export type ResultOf<M extends MethodDef> = z.output<M['result']>;

/** Context given to every service method on the serving side. */
export interface CallContext {
  /** Who called: a renderer window id, a WebSocket session, 'cli', 'test'. */
  readonly caller: string;
  /** Aborted when the caller goes away. */
  readonly signal: AbortSignal;
}

export type ServiceImpl<S extends ServiceDefs> = {
  [K in keyof S]: {
    [M in keyof S[K]]: (args: z.output<S[K][M]['args']>, context: CallContext) => Promise<ResultOf<S[K][M]>>;
  };
};

export type ClientOf<S extends ServiceDefs> = {
  [K in keyof S]: {
    [M in keyof S[K]]: z.input<S[K][M]['args']> extends Record<string, never>
      ? (args?: ArgsOf<S[K][M]>) => Promise<ResultOf<S[K][M]>>
      : (args: ArgsOf<S[K][M]>) => Promise<ResultOf<S[K][M]>>;
  };
};

export type EventPayload<E extends EventDefs, N extends keyof E> = z.output<E[N]>;
