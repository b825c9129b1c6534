import fs from 'node:fs';
import path from 'node:path';

/**
 * Whom the operator credential may go to (issue 20, finding 9). The CLI sends it over the admin
 * socket, so whoever put a socket at that path would receive it. Trusted: a socket (not a link)
 * owned by this user or root and not writable by group or others, in a directory owned by this
 * user or root that no one else may write to; the directories above it may be shared only with
 * the sticky bit (as /tmp), so no one else can move the path away and put their socket there.
 */
export function untrustedSocket(socketPath: string, uid: number | undefined = process.getuid?.()): string | undefined {
  if (uid === undefined) return undefined; // no owners to compare (Windows)
  let st: fs.Stats;
  try {
    st = fs.lstatSync(socketPath);
  } catch (err) {
    return `${socketPath} cannot be examined (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (st.isSymbolicLink()) return `${socketPath} is a symbolic link, not the server's socket`;
  if (!st.isSocket()) return `${socketPath} is not a socket`;
  if (st.uid !== uid && st.uid !== 0)
    return `${socketPath} belongs to uid ${st.uid}, neither this user (uid ${uid}) nor root`;
  if (st.mode & 0o022) return `${socketPath} may be written by its group or others (mode ${modeOf(st)})`;
  return untrustedDirectory(path.dirname(path.resolve(socketPath)), uid);
}

/** Why a directory (and those above it) lets someone other than this user or root replace what is in it, or undefined. */
export function untrustedDirectory(dir: string, uid: number | undefined = process.getuid?.()): string | undefined {
  if (uid === undefined) return undefined;
  let current: string;
  try {
    current = fs.realpathSync(dir);
  } catch (err) {
    return `${dir} cannot be examined (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  for (let own = true; ; own = false) {
    const st = fs.statSync(current);
    if (st.uid !== uid && st.uid !== 0)
      return `${current} belongs to uid ${st.uid}, neither this user (uid ${uid}) nor root`;
    // The socket's own directory: nobody else may write. Above it: only with the sticky bit, which keeps others from renaming our entries.
    if (st.mode & 0o022 && (own || !(st.mode & 0o1000)))
      return `${current} may be written by its group or others (mode ${modeOf(st)})`;
    const up = path.dirname(current);
    if (up === current) return undefined;
    current = up;
  }
}

const modeOf = (st: fs.Stats) => (st.mode & 0o7777).toString(8).padStart(4, '0');
