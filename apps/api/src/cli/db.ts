import fs from 'node:fs';
import path from 'node:path';
import { RestoreRefusedError, embeddedBackupOf, restoreEmbedded } from '../db/client.js';
import { NewerDatabaseError, migrate } from '../db/migrate.js';
import { systemRepository } from '../modules/system/index.js';
import { type CliGroup, CliRefusedError, CliUsageError } from './command.js';

/**
 * Backups of the embedded database (README: Backups, restore and upgrades). A copy of a running
 * PGlite folder carries its lock and a state torn between writes; `db backup` asks the running
 * server for a consistent copy (PgliteDatabase.backup), and `db restore` unpacks one into an
 * empty DATA_DIR and brings it up to this release. PostgreSQL has pg_dump and pg_restore.
 */
export const commands: CliGroup = {
  backup: {
    summary:
      'writes a consistent copy of the embedded database to a new file, while the server runs (PostgreSQL: pg_dump)',
    usage: '--file path',
    async run(ctx) {
      const file = String(ctx.flags.file);
      const backup = embeddedBackupOf(ctx.db);
      if (!backup)
        throw new CliUsageError(
          `the database is PostgreSQL: back it up with pg_dump (README: Backups), e.g. pg_dump --format=custom --file ${file} --dbname "$DATABASE_URL"`,
        );
      // Never over an existing file (an older backup is worth keeping), and never a half-written one under the name.
      if (fs.existsSync(file)) throw new CliRefusedError(`${file} exists: a backup never overwrites a file`);
      const partial = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
      try {
        fs.writeFileSync(partial, await backup, { mode: 0o600, flag: 'wx' });
        fs.linkSync(partial, file); // fails if the name was taken meanwhile
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ENOENT' || code === 'EACCES' || code === 'EROFS')
          throw new CliRefusedError(
            `cannot write ${file} (${code}): the server's user writes it, in a directory it may write to (under systemd, one of ReadWritePaths)`,
          );
        throw err;
      } finally {
        fs.rmSync(partial, { force: true });
      }
      const figures = await systemRepository(ctx.db).backupFigures();
      ctx.print(
        `Backup written: ${file} (${fs.statSync(file).size} bytes, schema ${figures.migration}). Keep it with APP_SECRET and the other secrets (README: Backups).`,
      );
    },
  },
  restore: {
    summary: 'restores an embedded backup into an empty DATA_DIR and upgrades it to this release (the server stopped)',
    usage: '--file path',
    async run() {
      throw new CliRefusedError(
        'a server is running on this DATA_DIR: a restore makes a new database and never replaces one in use; stop the server (or use a new DATA_DIR) and run it again',
      );
    },
    async runOffline(ctx) {
      const { database } = ctx.config;
      if (database.kind !== 'pglite')
        throw new CliUsageError(
          'the database is PostgreSQL: restore a pg_dump backup with pg_restore into an empty database (README: Backups)',
        );
      const file = String(ctx.flags.file);
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(file);
      } catch (err) {
        throw new CliRefusedError(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      let db;
      try {
        db = await restoreEmbedded(database.dataDir, bytes);
      } catch (err) {
        if (err instanceof RestoreRefusedError) throw new CliRefusedError(err.message);
        throw err;
      }
      let applied: string[];
      try {
        applied = await migrate(db);
      } catch (err) {
        await db.close();
        // Nothing of a database this release cannot run is left behind.
        fs.rmSync(database.dataDir, { recursive: true, force: true });
        if (err instanceof NewerDatabaseError)
          throw new CliRefusedError(
            `${file} comes from a newer Warren (${err.unknown.join(', ')}): restore it with that release or a newer one; nothing was restored`,
          );
        throw err;
      }
      try {
        const f = await systemRepository(db).backupFigures();
        ctx.print(
          `Restored ${file} into ${database.dataDir}: ${f.customers} accounts, ${f.devices} WireGuard devices, ${f.payments} payments, ${f.staffAudit} staff audit rows; schema ${f.migration}${applied.length ? ` (upgraded from the backup's by ${applied.join(', ')})` : ''}.`,
        );
      } finally {
        await db.close();
      }
    },
  },
};
