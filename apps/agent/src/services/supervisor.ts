import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Keeps one external server running (openvpn, dnsmasq): started with an argument array (no
 * shell), restarted with backoff when it exits, stopped by its pid. Its output is kept short and
 * logged only on exit, so client addresses that a server may print never reach the agent's log.
 */
export class Supervised {
  private child?: ChildProcess;
  private stopped = false;
  private restarts = 0;
  private timer?: NodeJS.Timeout;
  private tail = '';

  constructor(
    readonly name: string,
    private readonly cmd: string,
    private args: string[],
    private readonly log: (level: 'info' | 'warn' | 'error', msg: string, f?: Record<string, unknown>) => void,
    private readonly ready?: RegExp,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts it; resolves when `ready` is seen on its output (or at once without one). */
  start(): Promise<void> {
    this.stopped = false;
    return new Promise((resolve, reject) => {
      const child = spawn(this.cmd, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
      this.child = child;
      this.tail = '';
      let settled = !this.ready;
      if (settled) resolve();
      const deadline = setTimeout(() => {
        if (!settled) {
          settled = true;
          reject(new Error(`${this.name} not ready after 15 s: ${this.tail.slice(-500)}`));
        }
      }, 15_000);
      const onData = (c: Buffer) => {
        this.tail = (this.tail + c.toString()).slice(-4000);
        if (!settled && this.ready?.test(this.tail)) {
          settled = true;
          clearTimeout(deadline);
          this.restarts = 0;
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('error', (err) => {
        if (!settled) {
          settled = true;
          clearTimeout(deadline);
          reject(err);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(deadline);
        if (this.child === child) this.child = undefined;
        if (!settled) {
          // A failed start is the caller's to retry, not the supervisor's.
          settled = true;
          this.stopped = true;
          reject(new Error(`${this.name} exited with ${code ?? signal}: ${this.tail.slice(-500)}`));
        }
        if (this.stopped) return;
        this.restarts++;
        const delay = Math.min(30_000, 500 * 2 ** Math.min(this.restarts, 6));
        this.log('warn', 'service exited', {
          service: this.name,
          code,
          signal,
          retryInMs: delay,
          output: this.tail.slice(-300),
        });
        this.timer = setTimeout(
          () =>
            void this.start().catch((err) =>
              this.log('error', 'service restart failed', { service: this.name, error: (err as Error).message }),
            ),
          delay,
        );
      });
    });
  }

  signal(sig: NodeJS.Signals): void {
    this.child?.kill(sig);
  }

  async restart(args?: string[]): Promise<void> {
    await this.stop();
    if (args) this.args = args;
    await this.start();
  }

  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}
