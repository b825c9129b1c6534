import { Agent, type Log } from './agent.js';
import { ApiClient } from './api-client.js';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AgentConfigError, HELP, loadAgentConfig, takeEnvFile } from './config.js';
import { createAgentMetrics, startMetricsServer } from './metrics.js';
import { Wg, execWg } from './wg/wg.js';
import { extraPortsChecker, listWgPortsChain } from './wg/extra-ports.js';
import { loadServicesConfig } from './services/config.js';
import { NodeServicesRuntime } from './services/runtime.js';
import { loadStealthConfig } from './stealth/config.js';
import { GrpcCoreApi } from './stealth/core-api.js';
import { StealthRuntime } from './stealth/runtime.js';
import { NodeToken } from './token.js';
import { AGENT_VERSION } from './version.js';

/** `warren-agent`: one per VPN server. Logs JSON lines on stdout. */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;

async function main(): Promise<void> {
  let argv = process.argv.slice(2);
  if (argv[0] === 'setup') {
    // This very file is what the units run: the built agent, with the Node that runs setup.
    const { runSetup } = await import('./setup/main.js');
    process.exit(await runSetup(argv.slice(1), [process.execPath, fileURLToPath(import.meta.url)]));
  }
  if (argv[0] === '--version') {
    console.log(AGENT_VERSION);
    return;
  }
  if (argv[0] === 'run') argv = argv.slice(1);
  let config;
  try {
    argv = takeEnvFile(argv);
    config = loadAgentConfig(argv);
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
    if (LEVELS[level] >= min)
      process.stdout.write(`${JSON.stringify({ t: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
  // A token file others can read is a token others can use: say so (the agent still starts).
  if (config.tokenFile && (fs.statSync(config.tokenFile).mode & 0o077) !== 0)
    log('warn', 'the token file can be read by other users; chmod 600 it', { tokenFile: config.tokenFile });
  const metrics = config.metrics ? createAgentMetrics({ defaults: true }) : undefined;
  // Re-read from its file when the API refuses it: a new token (npx warren vpn node-token) needs no restart.
  const token = new NodeToken(config.token, config.tokenFile);
  const api = new ApiClient({
    baseUrl: config.apiUrl,
    socketPath: config.apiSocket,
    token,
    onNewToken: () =>
      log('info', 'the API refused the node token; using the new one from the token file', {
        tokenFile: config.tokenFile,
      }),
  });
  const wg = new Wg(config.iface, execWg(config.wgBin), config.stateDir);
  // OpenVPN, SOCKS5 and resolvers, when WARREN_SERVICES lists them (services/config.ts).
  let services: NodeServicesRuntime | undefined;
  try {
    const sc = loadServicesConfig(config.stateDir);
    if (sc)
      services = new NodeServicesRuntime(
        sc,
        {
          apiUrl: config.apiUrl,
          apiSocket: config.apiSocket,
          get token() {
            return token.value;
          },
        },
        log,
      );
  } catch (err) {
    console.error(`Invalid services configuration: ${(err as Error).message}`);
    process.exit(64);
  }
  // The stealth core's users and counters, when WARREN_STEALTH_HOST is set (stealth/config.ts).
  let stealth: StealthRuntime | undefined;
  try {
    const st = loadStealthConfig(config.stateDir);
    if (st) stealth = new StealthRuntime(st, new GrpcCoreApi(st.api), log);
  } catch (err) {
    console.error(`Invalid stealth configuration: ${(err as Error).message}`);
    process.exit(64);
  }
  const appliers = [...(services ? [services.apply] : []), ...(stealth ? [stealth.apply] : [])];
  if (metrics && services?.socksSessions() !== undefined)
    metrics.sessions('socks5', () => services?.socksSessions() ?? 0);
  if (metrics && services) metrics.sessions('openvpn', () => services!.openvpnSessions());
  if (metrics && stealth) metrics.sessions('stealth', () => stealth!.activeSessions());
  const agent = new Agent(
    api,
    wg,
    {
      ...config,
      stateDir: config.stateDir,
      appliers,
      reportParts: stealth ? [stealth] : [],
      // The extra WireGuard ports setup configured: reported only while their redirect is in place ([] when none).
      extraPorts: extraPortsChecker(config.wgExtraPorts, config.iface, () => listWgPortsChain(config.nftBin)),
      observer: metrics?.observer,
      version: AGENT_VERSION,
    },
    log,
  );
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
  if (metrics && config.metrics) {
    try {
      metricsServer = await startMetricsServer(metrics.registry, config.metrics);
    } catch (err) {
      console.error(`Cannot serve metrics on ${config.metrics.host}:${config.metrics.port}: ${(err as Error).message}`);
      process.exit(64);
    }
    log('info', 'metrics listening', { host: config.metrics.host, port: metricsServer.port });
  }
  const stop = (signal: string) => {
    log('info', 'stopping', { signal });
    agent.stop();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  log('info', 'started', {
    api: config.apiSocket ? `unix:${config.apiSocket}` : config.apiUrl,
    interface: config.iface,
  });
  (services ? services.start() : Promise.resolve())
    .then(() => stealth?.start())
    .then(() => agent.run())
    .finally(() => Promise.all([services?.stop(), stealth?.stop(), metricsServer?.close()]))
    .then(
      () => process.exit(0),
      (err) => {
        log('error', 'crashed', { error: (err as Error).message });
        process.exit(1);
      },
    );
}

void main();
