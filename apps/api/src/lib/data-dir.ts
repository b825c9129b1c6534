import fs from 'node:fs';
import path from 'node:path';

/**
 * DATA_DIR holds the embedded database (its WAL has every email and password hash), the outbox
 * (live reset links) and the operator credential: only the server's user may read it (issue 20,
 * finding 2). PGlite writes its files itself: the fresh database it unpacks is 0666 whatever the
 * umask, and the relation files it adds later are 0777 less the umask. So the process runs with a
 * private umask (what it creates from then on is the owner's), and the directory is walked at
 * start and once the database is open: directories 0700, files 0600.
 */
export const PRIVATE_UMASK = 0o077;
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Everything this process creates from now on is readable by its user only. */
export function usePrivateUmask(): void {
  process.umask(PRIVATE_UMASK);
}

export interface LooseEntry {
  /** Relative to DATA_DIR ('.' for the directory itself). */
  path: string;
  /** The permission bits found, e.g. '666'. */
  mode: string;
  /** Tightened; false when another user owns it (then it is reported, not touched). */
  fixed: boolean;
}

export interface DataDirReport {
  /** Entries some other user could read, write or enter, as found. */
  loose: LooseEntry[];
  /** DATA_DIR is a shared directory (sticky bit, e.g. /tmp): left as it is; only its contents were tightened. */
  shared: boolean;
}

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * Creates DATA_DIR (0700) when missing and tightens it and everything in it that this user owns:
 * directories to 0700, regular files to 0600. Symbolic links are not followed and sockets keep
 * their mode (LISTEN_SOCKET may be 660 for the reverse proxy's group on purpose).
 */
export function secureDataDir(dataDir: string): DataDirReport {
  fs.mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  const me = uid();
  const loose: LooseEntry[] = [];
  const root = fs.lstatSync(dataDir);
  // A shared directory such as /tmp (sticky bit): closing it would break every other user of it.
  const shared = (root.mode & 0o1000) !== 0 || path.resolve(dataDir) === path.parse(path.resolve(dataDir)).root;

  const visit = (file: string, st: fs.Stats, isRoot: boolean) => {
    const bits = st.mode & 0o777;
    const wanted = st.isDirectory() ? DIR_MODE : FILE_MODE;
    if (bits !== wanted && !(isRoot && shared)) {
      const mine = me === undefined || st.uid === me;
      // Only group/other access is worth a warning; an owner-only file that is 0700 is just made 0600.
      if (bits & 0o077)
        loose.push({ path: path.relative(dataDir, file) || '.', mode: bits.toString(8).padStart(3, '0'), fixed: mine });
      if (mine) fs.chmodSync(file, wanted);
    }
    if (!st.isDirectory()) return;
    for (const name of fs.readdirSync(file)) {
      const child = path.join(file, name);
      let cst: fs.Stats;
      try {
        cst = fs.lstatSync(child);
      } catch {
        continue; // removed meanwhile (a mail renamed, a WAL segment recycled)
      }
      if (cst.isDirectory() || cst.isFile()) visit(child, cst, false);
    }
  };
  visit(dataDir, root, true);
  return { loose, shared };
}

/** The warning the server and the CLI give when DATA_DIR was open to other users (a few examples, not every file). */
export function describeLooseDataDir(dataDir: string, report: DataDirReport): string | undefined {
  const notes: string[] = [];
  if (report.loose.length) {
    const unfixed = report.loose.filter((e) => !e.fixed);
    const examples = report.loose
      .slice(0, 5)
      .map((e) => `${e.path} (${e.mode})`)
      .join(', ');
    notes.push(
      `DATA_DIR ${dataDir} was open to other users: ${report.loose.length} entries, e.g. ${examples}; ` +
        `tightened to 0700 (directories) and 0600 (files)` +
        (unfixed.length
          ? `, except ${unfixed.length} owned by another user (fix them as root: chown -R and chmod -R go-rwx)`
          : ''),
    );
  }
  if (report.shared)
    notes.push(`DATA_DIR ${dataDir} is a shared directory (sticky bit or /): give the server a directory of its own`);
  return notes.length ? notes.join('. ') : undefined;
}
