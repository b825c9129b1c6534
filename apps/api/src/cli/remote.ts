import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../config.js';
import { type AdminReply, type AdminRequest, ADMIN_PROTOCOL } from '../admin/protocol.js';
import { untrustedSocket } from '../admin/trust.js';

/**
 * The CLI's side of the admin channel (server side: admin/channel.ts; README: Operating Warren).
 * When a server answers on the admin socket, the command runs there, in-process with the server's
 * own services and database, and its output and exit code come back; `undefined` means no server
 * answers (no socket file, or a stale one nobody listens on) and the caller opens the database.
 * A server that answers but refuses, or a credential the CLI cannot read, is an error: it never
 * falls back to the database a running server holds.
 */
export async function runOnServer(
  admin: Config['admin'],
  argv: string[],
  print: (line: string) => void,
  note: (line: string) => void,
): Promise<number | undefined> {
  if (!admin) return undefined;
  const socket = await connect(admin.socket);
  if (!socket) return undefined;
  try {
    // Before the credential is even read: whoever owns this path would receive it (admin/trust.ts).
    const untrusted = untrustedSocket(admin.socket);
    if (untrusted)
      throw new Error(
        `refusing to send the operator credential over ${admin.socket}: ${untrusted}. Check who made it; the server makes its socket 0600 in a directory only its user can write (ADMIN_SOCKET)`,
      );
    let token: string;
    try {
      token = fs.readFileSync(admin.tokenFile, 'utf8').trim();
    } catch (err) {
      throw new Error(
        `a server is running (${admin.socket}) but its operator credential ${admin.tokenFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): run the CLI as the server's user`,
      );
    }
    note(`warren: running on the server through ${admin.socket}`);
    const request: AdminRequest = { v: ADMIN_PROTOCOL, token, argv: withAbsolutePaths(argv, process.cwd()) };
    return await exchange(socket, request, print);
  } finally {
    socket.destroy();
  }
}

/** A connected socket, or undefined when nothing listens there (no file, a stale file). Permission errors are thrown. */
function connect(socketPath: string): Promise<net.Socket | undefined> {
  if (!fs.existsSync(socketPath)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(undefined);
      else if (err.code === 'EACCES')
        reject(
          new Error(
            `a server is running but its admin socket ${socketPath} is not open to this user: run the CLI as the server's user`,
          ),
        );
      else reject(err);
    });
  });
}

function exchange(socket: net.Socket, request: AdminRequest, print: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let done = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while (!done && (nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let reply: AdminReply;
        try {
          reply = JSON.parse(line) as AdminReply;
        } catch {
          done = true;
          reject(new Error('the admin channel answered something that is not its protocol'));
          return;
        }
        if ('out' in reply) print(reply.out);
        else {
          done = true;
          if (reply.error) print(`Error: ${reply.error}`);
          resolve(reply.exit);
        }
      }
    });
    socket.on('error', (err) => {
      if (!done) reject(err);
      done = true;
    });
    socket.on('close', () => {
      if (!done)
        reject(
          new Error(
            'the server closed the admin channel before the command finished (was it stopped?); check its state before running the command again',
          ),
        );
      done = true;
    });
    socket.write(`${JSON.stringify(request)}\n`);
  });
}

/**
 * Flags that name files (`--file`, `--text-file`, `--…-file`, with a value or `=value`) are
 * resolved against the operator's working directory: the server's differs. Nothing else changes.
 */
export function withAbsolutePaths(argv: string[], cwd: string): string[] {
  const isFileFlag = (name: string) => name === 'file' || name.endsWith('-file');
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 2 && isFileFlag(arg.slice(2, eq)))
      out.push(`${arg.slice(0, eq + 1)}${path.resolve(cwd, arg.slice(eq + 1))}`);
    else if (
      arg.startsWith('--') &&
      eq < 0 &&
      isFileFlag(arg.slice(2)) &&
      argv[i + 1] !== undefined &&
      !argv[i + 1]!.startsWith('--')
    )
      out.push(arg, path.resolve(cwd, argv[++i]!));
    else out.push(arg);
  }
  return out;
}
