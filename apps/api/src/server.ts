import fs from 'node:fs';
import net from 'node:net';
import { startAdminChannel } from './admin/channel.js';
import { buildApp } from './app.js';
import { loadBrandRegistry } from './brands/registry.js';
import { ConfigError, loadConfig } from './config.js';
import { NewerDatabaseError } from './db/migrate.js';
import { buildInfo } from './lib/build-info.js';
import { describeLooseDataDir, secureDataDir, usePrivateUmask } from './lib/data-dir.js';
import { startupReport } from './lib/startup-report.js';
import { type MetricsListener, startMetricsListener } from './plugins/metrics.js';

/** Listens, and shuts down gracefully: in-flight requests finish, then the database closes. */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  // In production, settings that would harm customers without anyone noticing stop the start here,
  // before the database is opened (lib/startup-report.ts; README: Running in production).
  const report = startupReport(config, loadBrandRegistry(config.brandsFile), buildInfo());
  if (report.refusals.length) {
    console.error(`Refusing to start in production:\n${report.refusals.map((r) => `  - ${r}`).join('\n')}`);
    process.exit(78); // EX_CONFIG
  }
  // What the server writes is its user's alone (lib/data-dir.ts): the database, mails, the operator credential.
  usePrivateUmask();
  const found = secureDataDir(config.dataDir);
  // Before opening the database: a socket another live server answers on is refused at once.
  if (config.socket) await freeSocketPath(config.socket);
  let app;
  try {
    app = await buildApp(config);
  } catch (err) {
    // What only the data can tell (a secret its sealed values need, modules/secrets) is a configuration error too.
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
  // One line that says what runs against what (no secrets), then what looks wrong in production.
  app.log.info(report.summary, 'warren starting');
  for (const warning of report.warnings) app.log.warn({ production: true }, `PRODUCTION WARNING: ${warning}`);
  // PGlite unpacks a new database 0666 whatever the umask: tightened before anyone is served.
  secureDataDir(config.dataDir);
  const loose = describeLooseDataDir(config.dataDir, found);
  if (loose) app.log.warn({ dataDir: config.dataDir, entries: found.loose.length }, loose);
  if (config.socket) {
    // Created 660 (the owner and its group: the reverse proxy, a local agent), never open to all even for a moment.
    const umask = process.umask(0o117);
    try {
      await app.listen({ path: config.socket });
    } finally {
      process.umask(umask);
    }
  } else await app.listen({ host: config.host, port: config.port });
  // Prometheus scrapes its own port (127.0.0.1 by default), never the public one (README: Metrics).
  let metrics: MetricsListener | undefined;
  if (config.metrics) {
    metrics = await startMetricsListener(app.services.metrics, config.metrics);
    app.log.info({ host: config.metrics.host, port: metrics.port }, 'metrics listening');
  }
  // `npx warren …` runs here, in-process, while the server serves (README: Operating Warren).
  const admin = config.admin ? await startAdminChannel(app.services, config.admin, app.log) : undefined;

  /**
   * Graceful shutdown (README: Faults): /api/health turns 503 at once and every answer closes its
   * connection, while the instance still serves for SHUTDOWN_DELAY_MS (SIGTERM only: a person's
   * Ctrl-C has no balancer to tell) and its job workers finish or hand back their jobs; then it
   * stops accepting, answers the parked long polls (preClose), finishes the requests in flight,
   * drains background mail, closes the database and exits 0. SHUTDOWN_GRACE_MS bounds it all (exit 1).
   * A second signal changes nothing: the first drain goes on.
   */
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) {
      app.log.warn({ signal }, 'already shutting down');
      return;
    }
    closing = true;
    const { delayMs, graceMs } = config.shutdown;
    const delay = signal === 'SIGTERM' ? delayMs : 0;
    app.log.info({ signal, delayMs: delay, graceMs }, 'shutting down');
    const force = setTimeout(() => {
      app.log.error({ graceMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    app.drain();
    try {
      await Promise.all([
        // pg-boss lets running jobs finish (up to its own timeout) and fails back what is still active, for another instance.
        app.services.jobs.stop().catch((err: unknown) => app.log.error({ err }, 'stopping the job workers failed')),
        delay ? new Promise((resolve) => setTimeout(resolve, delay)) : undefined,
      ]);
      app.log.info('draining: no longer accepting connections');
      // Node closes idle keep-alive connections when close() starts, but a connection that was busy
      // then stays open after its answer until the keep-alive timeout: sweep them while draining.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      sweep.unref();
      await metrics?.close();
      await admin?.close(); // operator commands still running finish before the database closes
      await app.close();
      app.log.info('shut down');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** A socket file left by a server that died is removed; one a live server answers on is refused. */
async function freeSocketPath(socket: string): Promise<void> {
  if (!fs.existsSync(socket)) return;
  if (!fs.statSync(socket).isSocket()) throw new Error(`LISTEN_SOCKET ${socket} exists and is not a socket`);
  const live = await new Promise<boolean>((resolve) => {
    const c = net.connect(socket, () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
  if (live) throw new Error(`LISTEN_SOCKET ${socket} is in use by another server`);
  fs.rmSync(socket, { force: true });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  // A database from a newer release is a state a restart cannot change (systemd: RestartPreventExitStatus=78).
  process.exit(err instanceof NewerDatabaseError ? 78 : 1);
});
