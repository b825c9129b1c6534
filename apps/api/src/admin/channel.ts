import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { runCommand } from '../cli/index.js';
import type { Services } from '../composition.js';
import { type AdminReply, type AdminRequest, ADMIN_PROTOCOL, EXIT_NOPERM, EXIT_PROTOCOL } from './protocol.js';
import { untrustedDirectory } from './trust.js';

export interface AdminChannelOptions {
  /** config.admin: the socket path and the operator credential file. */
  socket: string;
  tokenFile: string;
}
interface Log {
  info: (obj: object, msg: string) => void;
  warn: (obj: object, msg: string) => void;
  error: (obj: object, msg: string) => void;
}
export interface AdminChannel {
  socket: string;
  /** Stops accepting commands and waits for the running ones to finish (before the database closes). */
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The operator's admin channel (README: Operating Warren): `npx warren …` sends its words here and
 * the server runs the SAME command code (cli/index.ts runCommand) in-process with its own services
 * and database, streaming the output lines and the exit code back. Only the operator reaches it:
 * a unix socket created 0600 (the server's user, and root), and every request must carry the
 * credential from the token file (0600, made at first start): a customer's bearer token, or no
 * token, is refused. Returns undefined (and logs why) when the channel cannot be opened; the
 * server then serves without it and the CLI says it found no server.
 */
export async function startAdminChannel(
  services: Services,
  options: AdminChannelOptions,
  log: Log,
): Promise<AdminChannel | undefined> {
  let token: string;
  try {
    token = operatorToken(options.tokenFile);
  } catch (err) {
    log.error({ err: (err as Error).message }, 'admin channel off: the operator credential file is unusable');
    return undefined;
  }
  const expected = crypto.createHash('sha256').update(token).digest();
  const accepts = (offered: unknown) =>
    typeof offered === 'string' &&
    crypto.timingSafeEqual(crypto.createHash('sha256').update(offered).digest(), expected);

  // A directory others may write to lets them swap the socket for theirs: the CLI would refuse it anyway (cli/remote.ts).
  fs.mkdirSync(path.dirname(options.socket), { recursive: true, mode: 0o700 });
  const untrusted = untrustedDirectory(path.dirname(options.socket));
  if (untrusted) {
    log.error(
      { socket: options.socket, reason: untrusted },
      "admin channel off: its directory is not the server user's alone",
    );
    return undefined;
  }
  if (await answers(options.socket)) {
    log.warn(
      { socket: options.socket },
      'admin channel off: another server answers on its socket (set ADMIN_SOCKET per instance)',
    );
    return undefined;
  }
  fs.rmSync(options.socket, { force: true }); // a stale file left by a server that died

  const running = new Set<Promise<unknown>>();
  const server = net.createServer((conn) => {
    const task = serve(conn, accepts, services, log);
    running.add(task);
    void task.finally(() => running.delete(task));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Created 0600 from the start (Node binds a unix socket synchronously inside listen()), never
      // open to others even for a moment; the umask is restored at once, so no other file the
      // server makes meanwhile is affected.
      const umask = process.umask(0o177);
      try {
        server.listen(options.socket, () => {
          server.off('error', reject);
          resolve();
        });
      } finally {
        process.umask(umask);
      }
    });
  } catch (err) {
    log.error(
      { err: (err as Error).message, socket: options.socket },
      'admin channel off: cannot listen on its socket',
    );
    return undefined;
  }
  fs.chmodSync(options.socket, 0o600);
  log.info({ socket: options.socket }, 'admin channel listening');

  let closed: Promise<void> | undefined;
  return {
    socket: options.socket,
    close: () =>
      (closed ??= (async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        while (running.size) await Promise.allSettled([...running]);
      })()),
  };
}

/** The credential in the token file, made (0600, 256 random bits) when there is none; a file others may read is refused, as ssh does. */
function operatorToken(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    fs.writeFileSync(file, `${crypto.randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stat = fs.statSync(file);
  if (stat.mode & 0o077)
    throw new Error(`${file} may be read by other users (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 it`);
  const token = fs.readFileSync(file, 'utf8').trim();
  if (token.length < 32) throw new Error(`${file} holds fewer than 32 characters`);
  return token;
}

function answers(socket: string): Promise<boolean> {
  if (!fs.existsSync(socket)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const c = net.connect(socket, () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/** One connection: one request line, then the command's output and exit code. */
async function serve(
  conn: net.Socket,
  accepts: (token: unknown) => boolean,
  services: Services,
  log: Log,
): Promise<void> {
  const send = (reply: AdminReply) => {
    if (!conn.destroyed) conn.write(`${JSON.stringify(reply)}\n`);
  };
  conn.on('error', () => {}); // the CLI went away: the command still finishes, its output is dropped
  const line = await readLine(conn);
  if (line === undefined) {
    send({ exit: EXIT_PROTOCOL, error: 'expected one JSON request line' });
    conn.end();
    return;
  }
  let request: Partial<AdminRequest>;
  try {
    request = JSON.parse(line) as Partial<AdminRequest>;
  } catch {
    request = {};
  }
  if (!request || typeof request !== 'object' || !accepts(request.token)) {
    log.warn({}, 'admin channel: request refused (no or wrong operator credential)');
    send({ exit: EXIT_NOPERM, error: 'refused: the operator credential is missing or wrong' });
    conn.end();
    return;
  }
  const argv = request.argv;
  if (
    request.v !== ADMIN_PROTOCOL ||
    !Array.isArray(argv) ||
    argv.length > 200 ||
    !argv.every((a) => typeof a === 'string')
  ) {
    send({
      exit: EXIT_PROTOCOL,
      error: `this server speaks admin protocol ${ADMIN_PROTOCOL}; update the CLI or the server`,
    });
    conn.end();
    return;
  }
  // What ran is logged by its command words only: flag values may name customers.
  const command = argv
    .filter((a) => !a.startsWith('-'))
    .slice(0, 2)
    .join(' ')
    .slice(0, 60);
  let exit: number;
  try {
    exit = await runCommand(argv, {
      db: services.db,
      config: services.config,
      services: async () => services,
      print: (out) => send({ out }),
    });
  } catch (err) {
    log.error({ err, command }, 'operator command failed');
    exit = 1;
  }
  log.info({ command, exit }, 'operator command');
  send({ exit });
  conn.end();
}

function readLine(conn: net.Socket): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buffered = '';
    const finish = (line: string | undefined) => {
      clearTimeout(timer);
      conn.off('data', onData);
      conn.off('end', onEnd);
      resolve(line);
    };
    const timer = setTimeout(() => finish(undefined), REQUEST_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const nl = buffered.indexOf('\n');
      if (nl >= 0) finish(buffered.slice(0, nl));
      else if (buffered.length > MAX_REQUEST_BYTES) finish(undefined);
    };
    const onEnd = () => finish(undefined);
    conn.on('data', onData);
    conn.on('end', onEnd);
  });
}
