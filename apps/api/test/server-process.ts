import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/** Helpers for tests that run the real server as a separate process (restarts, signals, crashes). */
export const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const serverEntry = path.join(repoRoot, 'apps/api/src/server.ts');

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

export interface RunningServer {
  proc: ChildProcess;
  origin: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

/** Starts the server and resolves once it logged that it listens (no polling, no sleeps). */
export async function startServer(
  env: Record<string, string>,
  entry = serverEntry,
  opts: { umask?: number } = {},
): Promise<RunningServer> {
  const args = ['--import', 'tsx', entry];
  // A umask is a process's own: a shell sets it and becomes node (exec), so the pid is the server's.
  const proc =
    opts.umask === undefined
      ? spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(
          '/bin/sh',
          ['-c', `umask ${opts.umask.toString(8).padStart(3, '0')} && exec "$0" "$@"`, process.execPath, ...args],
          { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
        );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let out = '';
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const origin = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${out}`)),
    );
  });
  return { proc, origin, exited, output: () => out };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  // Test code reads answers by path; the API's own schemas are tested elsewhere.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: Record<string, any>;
}

/** A browser-like client over real HTTP: XSRF cookie + header, bearer token. */
export async function httpClient(origin: string) {
  const health = await fetch(`${origin}/api/brand`);
  // Every cookie the server set (the XSRF token and the httpOnly key it is bound to), sent back like a browser.
  const cookie = health.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  const xsrf = /XSRF-TOKEN=([^;]+)/.exec(cookie)![1]!;
  let bearer: string | undefined;
  const call = async (method: string, url: string, body?: unknown): Promise<HttpAnswer> => {
    const res = await fetch(`${origin}${url}`, {
      method,
      headers: {
        cookie,
        'x-xsrf-token': decodeURIComponent(xsrf),
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json: HttpAnswer['json'];
    try {
      json = JSON.parse(text);
    } catch {
      json = { text };
    }
    return { status: res.status, headers: res.headers, json };
  };
  return {
    call,
    setToken(token: string) {
      bearer = token;
    },
  };
}
