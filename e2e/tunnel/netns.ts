import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';

/**
 * Small helpers for the tunnel test: programs run with execFile and argument arrays, background
 * processes are our own children (stopped by pid), and readiness is a line on their output, never
 * a sleep.
 */
export function run(cmd: string, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { timeout: opts.timeoutMs ?? 20_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${String(stderr || err.message).trim()}`));
        else resolve(stdout);
      },
    );
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

export const inNs = (ns: string, cmd: string, args: string[], opts?: { input?: string; timeoutMs?: number }) =>
  run('ip', ['netns', 'exec', ns, cmd, ...args], opts);

export interface Background {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts a process and resolves once a line of its output matches `ready` (or fails at the deadline). */
export function background(
  cmd: string,
  args: string[],
  ready: RegExp | null,
  deadlineMs = 20_000,
  env?: NodeJS.ProcessEnv,
): Promise<Background> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
  let out = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  const handle: Background = { child, output: () => out, stop };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${cmd} ${args.join(' ')} not ready after ${deadlineMs} ms:\n${out}`));
    }, deadlineMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready && ready.test(out)) {
        clearTimeout(timer);
        resolve(handle);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${out}`));
    });
    if (!ready) {
      clearTimeout(timer);
      resolve(handle);
    }
  });
}

/** Polls `check` until it returns a value, or throws after the deadline. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  deadlineMs: number,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end)
      throw new Error(`${what}: not within ${deadlineMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function hasTool(cmd: string, args: string[] = ['--version']): Promise<boolean> {
  try {
    await run(cmd, args, { timeoutMs: 5000 });
    return true;
  } catch {
    return false;
  }
}

const AGENT = new URL('../../apps/agent/bin/warren-agent.mjs', import.meta.url).pathname;

/**
 * `warren-agent setup …` inside a namespace, as an operator runs it on a server. Returns its output
 * and the command it says starts the agent (systemd does not run here).
 */
export async function setupNode(ns: string, args: string[]): Promise<{ output: string; start: string[] }> {
  const output = await inNs(ns, process.execPath, [AGENT, 'setup', ...args], { timeoutMs: 60_000 });
  const line = /start the agent with:\n\s+(.+)/.exec(output)?.[1];
  if (!line) throw new Error(`setup did not say how to start the agent:\n${output}`);
  return { output, start: line.trim().split(/\s+/) };
}

/**
 * Ends the wireguard-go daemon that serves `iface` (setup starts it detached, so it is not our
 * child): found by its exact command line in /proc, stopped by pid. Deleting the link first
 * normally ends it already.
 */
export async function stopWireguardGo(ns: string, iface: string): Promise<void> {
  await run('ip', ['-n', ns, 'link', 'delete', iface]).catch(() => undefined);
  const pids = () =>
    fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((pid) => {
        try {
          const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          return argv.some((a) => a.endsWith('wireguard-go')) && argv.includes(iface);
        } catch {
          return false;
        }
      });
  for (const pid of pids()) {
    try {
      process.kill(Number(pid), 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  await until(`wireguard-go ${iface} gone`, async () => pids().length === 0, 5000).catch(() => undefined);
}
