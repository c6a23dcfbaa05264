import { fork, type ChildProcess } from 'node:child_process';
import { contract, type Contract } from '../../shared/contract/index.js';
import { ArgonautError } from '../../shared/rpc/errors.js';
import { createClient, type Client } from '../../shared/rpc/runtime.js';
import { HandlerSet } from '../../shared/rpc/transport.js';
import { childProcessTransport } from './child-transport.js';

export type HostState = 'starting' | 'ready' | 'crashed' | 'restarting' | 'stopped';

/** The host's exit code when it asks to be replaced by a fresh one (new GPU settings): not a crash. */
export const EXIT_RESTART_REQUESTED = 76;

export interface SupervisorOptions {
  /** The engine host's entry (out/host/index.mjs). */
  hostScript: string;
  /** Node runtime to run it with: the system node in development, the bundled one when packaged. */
  nodePath?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Restarts allowed within `restartWindowMs` before giving up. */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** Delay before restart n (0-based): backoff[n] or the last entry. */
  backoffMs?: number[];
  /** Where the host's stderr/stdout go (default: inherited). */
  stdio?: 'inherit' | 'pipe';
}

type Events = Contract['events'];

/**
 * Starts the engine host (plain Node: Dawn's mapped buffers are external ArrayBuffers that
 * Electron's V8 memory cage refuses), watches it, restarts it after a crash or a GPU device
 * loss, and tells every client. Calls in flight when the host dies fail with `host_crashed`.
 * A host that exits with EXIT_RESTART_REQUESTED is replaced at once, without counting a crash.
 * Used by Electron main and by the browser-mode server alike.
 */
export class HostSupervisor {
  private child: ChildProcess | undefined;
  private client: Client<Contract['services'], Events> | undefined;
  private stateValue: HostState = 'stopped';
  private restarts = 0;
  private recentRestarts: number[] = [];
  private stopping = false;
  private readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly stateHandlers = new HandlerSet<[HostState, string | undefined]>();
  private readonly eventHandlers = new HandlerSet<[string, unknown]>();
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SupervisorOptions) {}

  get state(): HostState {
    return this.stateValue;
  }

  get restartCount(): number {
    return this.restarts;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** State changes: (state, reason). */
  onState(handler: (state: HostState, reason: string | undefined) => void): () => void {
    return this.stateHandlers.add(handler);
  }

  /** Every event the host emits (log, progress, metrics, ...), by name. */
  onEvent(handler: (name: string, payload: unknown) => void): () => void {
    return this.eventHandlers.add(handler);
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.spawn();
    await this.whenReady();
  }

  /** Resolves once the host answers; rejects if the supervisor gives up or stops. */
  whenReady(): Promise<void> {
    if (this.stateValue === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  request(service: string, method: string, args: unknown): Promise<unknown> {
    if (!this.client || this.stateValue !== 'ready') {
      return Promise.reject(new ArgonautError('unavailable', `the engine host is ${this.stateValue}; try again in a moment`));
    }
    return this.client.request(service, method, args);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    this.setState('stopped', 'stopped by request');
    for (const w of this.readyWaiters.splice(0)) w.reject(new Error('supervisor stopped'));
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
  }

  private setState(state: HostState, reason?: string) {
    this.stateValue = state;
    this.stateHandlers.emit(state, reason);
  }

  /** Starts a host process; a requested restart (not a crash) passes its own state and reason. */
  private spawn(state: HostState = this.restarts ? 'restarting' : 'starting', reason?: string) {
    this.setState(state, reason);
    const child = fork(this.options.hostScript, this.options.args ?? [], {
      execPath: this.options.nodePath ?? process.execPath,
      // ARGONAUT_HOST_RESTARTS > 0 tells a restarted host to continue the jobs that were running.
      env: { ...process.env, ...this.options.env, ELECTRON_RUN_AS_NODE: '1', ARGONAUT_HOST_RESTARTS: String(this.restarts) },
      serialization: 'advanced',
      stdio: this.options.stdio === 'pipe' ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child = child;
    const transport = childProcessTransport(child);
    const client = createClient(contract, transport);
    this.client = client;
    transport.onMessage((message) => {
      if (message.kind === 'evt') this.eventHandlers.emit(message.name, message.payload);
    });
    child.once('exit', (code, signal) => {
      client.close(new ArgonautError('host_crashed', `the engine host exited (${signal ?? `code ${code}`}) during the call`));
      if (this.child !== child) return;
      this.child = undefined;
      this.client = undefined;
      if (this.stopping) return;
      if (code === EXIT_RESTART_REQUESTED) this.spawn('restarting', 'restarting with new GPU settings');
      else this.onCrash(signal ? `killed by ${signal}` : `exited with code ${code}`);
    });
    child.once('error', (error) => {
      if (this.child === child && !this.stopping) this.setState('crashed', `could not start the engine host: ${error.message}`);
    });
    void this.waitForPing(client, child);
  }

  private async waitForPing(client: Client<Contract['services'], Events>, child: ChildProcess) {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && this.child === child) {
      try {
        await client.api.system.ping({});
        if (this.child !== child) return;
        this.setState('ready');
        for (const w of this.readyWaiters.splice(0)) w.resolve();
        return;
      } catch (error) {
        if ((error as ArgonautError).code === 'host_crashed') return;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (this.child === child) child.kill('SIGKILL');
  }

  private onCrash(reason: string) {
    this.setState('crashed', reason);
    const now = Date.now();
    const window = this.options.restartWindowMs ?? 60_000;
    this.recentRestarts = this.recentRestarts.filter((t) => now - t < window);
    if (this.recentRestarts.length >= (this.options.maxRestarts ?? 5)) {
      const error = new Error(`the engine host crashed ${this.recentRestarts.length + 1} times within ${window / 1000} s; not restarting (${reason})`);
      this.setState('stopped', error.message);
      for (const w of this.readyWaiters.splice(0)) w.reject(error);
      return;
    }
    const backoff = this.options.backoffMs ?? [100, 1000, 5000];
    const delay = backoff[Math.min(this.recentRestarts.length, backoff.length - 1)];
    this.recentRestarts.push(now);
    this.restarts += 1;
    this.restartTimer = setTimeout(() => {
      if (!this.stopping) this.spawn();
    }, delay);
  }
}
