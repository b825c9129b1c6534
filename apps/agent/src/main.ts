import { Agent, type Log } from './agent.js';
import { ApiClient } from './api-client.js';
import { AgentConfigError, HELP, loadAgentConfig } from './config.js';
import { Wg, execWg } from './wg/wg.js';
import { loadServicesConfig } from './services/config.js';
import { NodeServicesRuntime } from './services/runtime.js';

/** `warren-agent`: one per VPN server. Logs JSON lines on stdout. */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;

function main(): void {
  let config;
  try {
    config = loadAgentConfig(process.argv.slice(2));
  } catch (err) {
    console.error(err instanceof AgentConfigError ? err.message : `Error: ${(err as Error).message}`);
    console.error(`\n${HELP}`);
    process.exit(64);
  }
  if (config === 'help') {
    console.log(HELP);
    return;
  }
  const min = LEVELS[config.logLevel];
  const log: Log = (level, msg, fields = {}) => {
    if (LEVELS[level] >= min) process.stdout.write(`${JSON.stringify({ t: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
  const api = new ApiClient({ baseUrl: config.apiUrl, socketPath: config.apiSocket, token: config.token });
  const wg = new Wg(config.iface, execWg(config.wgBin), config.stateDir);
  // OpenVPN, SOCKS5 and resolvers, when WARREN_SERVICES lists them (services/config.ts).
  let services: NodeServicesRuntime | undefined;
  try {
    const sc = loadServicesConfig(config.stateDir);
    if (sc) services = new NodeServicesRuntime(sc, { apiUrl: config.apiUrl, apiSocket: config.apiSocket, token: config.token }, log);
  } catch (err) {
    console.error(`Invalid services configuration: ${(err as Error).message}`);
    process.exit(64);
  }
  const agent = new Agent(api, wg, { ...config, appliers: services ? [services.apply] : [] }, log);
  const stop = (signal: string) => {
    log('info', 'stopping', { signal });
    agent.stop();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  log('info', 'started', { api: config.apiSocket ? `unix:${config.apiSocket}` : config.apiUrl, interface: config.iface });
  (services ? services.start() : Promise.resolve())
    .then(() => agent.run())
    .finally(() => services?.stop())
    .then(
    () => process.exit(0),
    (err) => {
      log('error', 'crashed', { error: (err as Error).message });
      process.exit(1);
    },
  );
}

main();
