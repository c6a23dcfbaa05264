/**
 * Terminal output of the CLI. With --json, stdout carries JSON lines only
 * ({"type":"progress",...}, ..., one {"type":"result",...} last); otherwise people-readable text
 * on stdout and progress bars on stderr.
 */
export interface Streams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

export class Output {
  private lastProgressLength = 0;
  private lastProgressAt = 0;

  constructor(
    readonly json: boolean,
    private readonly streams: Streams,
  ) {}

  /** A JSON line in --json mode; nothing otherwise. */
  event(type: string, payload: Record<string, unknown>): void {
    if (this.json) this.streams.stdout.write(`${JSON.stringify({ type, ...payload })}\n`);
  }

  result(payload: Record<string, unknown>, human?: string): void {
    if (this.json) this.event('result', payload);
    else if (human !== undefined) this.text(human);
  }

  text(line: string): void {
    this.clearProgress();
    this.streams.stdout.write(line.endsWith('\n') ? line : `${line}\n`);
  }

  warn(line: string): void {
    this.clearProgress();
    this.streams.stderr.write(`${line}\n`);
  }

  /** A progress line: JSON event, or a bar on stderr (redrawn in place on a terminal, throttled otherwise). */
  progress(payload: { stage: string; step?: number; total?: number; message?: string; [k: string]: unknown }, force = false): void {
    if (this.json) {
      this.event('progress', payload);
      return;
    }
    const now = Date.now();
    const tty = Boolean(this.streams.stderr.isTTY);
    if (!force && now - this.lastProgressAt < (tty ? 100 : 5000)) return;
    this.lastProgressAt = now;
    const { stage, step, total, message } = payload;
    let bar = '';
    if (step !== undefined && total) {
      const width = 24;
      const filled = Math.round((width * Math.min(step, total)) / total);
      bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${step}/${total} `;
    }
    const line = `${stage} ${bar}${message ?? ''}`.trimEnd();
    if (tty) {
      this.streams.stderr.write(`\r${line.padEnd(this.lastProgressLength)}`);
      this.lastProgressLength = line.length;
    } else this.streams.stderr.write(`${line}\n`);
  }

  clearProgress(): void {
    if (this.lastProgressLength && this.streams.stderr.isTTY) {
      this.streams.stderr.write(`\r${' '.repeat(this.lastProgressLength)}\r`);
      this.lastProgressLength = 0;
    }
  }
}
