import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Database } from '../../db/client.js';
import { devicesRoutes } from '../devices/routes.js';
import { devicesService } from '../devices/service.js';
import { loadDownloads, loadLocationSeeds } from '../servers/catalogue.js';
import { serversRepository } from '../servers/repository.js';
import { serversRoutes } from '../servers/routes.js';
import { serversService } from '../servers/service.js';
import { nodesRepository } from './repository.js';
import { nodesRoutes } from './routes.js';
import { nodesService } from './service.js';
import { loadVpnConfig } from './vpn-config.js';
import { createChangeWatcher } from './watcher.js';

export interface VpnModuleOptions {
  db: Database;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  env?: NodeJS.ProcessEnv;
}

/**
 * The VPN area in one plugin: server locations and downloads, WireGuard devices, and the node API
 * agents long-poll. Seeds the locations (idempotently) when it starts.
 */
async function vpn(app: FastifyInstance, { db, auth, env = process.env }: VpnModuleOptions) {
  const vpn = loadVpnConfig(env);
  const downloads = loadDownloads(vpn.downloadsFile);
  const servers = serversService({ db, vpn, downloads });
  if (vpn.seed) {
    const seeds = loadLocationSeeds(vpn.locationsFile);
    await db.exclusive(727_004, (tx) => serversRepository(tx).seed(seeds.locations, seeds.nodeDomain));
  }
  const watcher = createChangeWatcher(() => nodesRepository(db).version(), vpn.changePollMs, (err) => app.log.warn({ err }, 'reading the VPN change log failed'));
  app.addHook('preClose', async () => watcher.close());
  app.addHook('onClose', async () => watcher.close());

  const devices = devicesService({ db, vpn, servers: servers.repo, changed: () => watcher.poke() });
  const nodes = nodesService({ db, vpn, watcher });

  await app.register(serversRoutes, { servers, auth });
  await app.register(devicesRoutes, { devices, auth });
  await app.register(nodesRoutes, { nodes });
}

export const vpnModule = fp(vpn, { name: 'vpn' });
