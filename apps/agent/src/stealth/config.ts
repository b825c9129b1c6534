import net from 'node:net';
import path from 'node:path';
import { STEALTH_DEFAULT_PORT } from '@warren/contract';
import { CORE_LOOPBACK } from './render.js';

/**
 * The agent's side of the stealth core, from the environment (`setup` writes it to agent.env).
 * Off unless WARREN_STEALTH_HOST is set. The core itself runs as its own unit (setup/render.ts).
 *
 *   WARREN_STEALTH_HOST      the public host name the certificate is for     (required to turn it on)
 *   WARREN_STEALTH_PORT      the public TLS port                             default: 443
 *   WARREN_STEALTH_WS_PATH   VLESS's WebSocket path ("/" + random)           (required)
 *   WARREN_STEALTH_CERT      the certificate file (its expiry is reported)   optional
 *   WARREN_STEALTH_API       the core's gRPC API                             default: 127.0.0.1:10085
 *   WARREN_STEALTH_SITE      where the agent serves the fallback website     default: 127.0.0.1:10080
 *   WARREN_STEALTH_HTTP      the same website on plain HTTP, public          default: none (setup: 0.0.0.0:80)
 *   WARREN_V2RAY_BIN         the core's binary (its version is reported)     default: v2ray
 *   WARREN_STEALTH_RESTART_FILE  written to ask for a restart of the core       default: <state dir>/stealth-restart
 *                            (its systemd path unit restarts it; README: Stealth, "When access ends")
 */
export interface StealthConfig {
  host: string;
  port: number;
  wsPath: string;
  certFile?: string;
  api: string;
  site: { host: string; port: number };
  http?: { host: string; port: number };
  v2rayBin: string;
  /** Where the emails ever given to the core are remembered (stale ones are removed after an agent restart). */
  stateFile: string;
  /** Written to ask for a restart of the core (warren-stealth-restart.path watches it). */
  restartFile: string;
}

function hostPort(v: string, name: string): { host: string; port: number } {
  const m = /^(.+):(\d{1,5})$/.exec(v);
  const port = Number(m?.[2]);
  if (!m || !net.isIP(m[1]!.replace(/^\[|\]$/g, '')) || port < 1 || port > 65535)
    throw new Error(`${name}: ${v} is not ADDRESS:PORT`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

export function loadStealthConfig(stateDir: string, env: NodeJS.ProcessEnv = process.env): StealthConfig | null {
  const host = env.WARREN_STEALTH_HOST?.trim();
  if (!host) return null;
  if (
    !/^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(
      host,
    )
  )
    throw new Error(`WARREN_STEALTH_HOST: ${host} is not a host name`);
  const port = Number(env.WARREN_STEALTH_PORT || STEALTH_DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error('WARREN_STEALTH_PORT must be an integer in 1..65535');
  const wsPath = env.WARREN_STEALTH_WS_PATH ?? '';
  if (!/^\/[A-Za-z0-9_-]{1,64}$/.test(wsPath))
    throw new Error('WARREN_STEALTH_WS_PATH must be "/" and 1-64 letters, digits, _ or - (setup writes it)');
  const api = hostPort(env.WARREN_STEALTH_API || `127.0.0.1:${CORE_LOOPBACK.api}`, 'WARREN_STEALTH_API');
  return {
    host,
    port,
    wsPath,
    certFile: env.WARREN_STEALTH_CERT ? path.resolve(env.WARREN_STEALTH_CERT) : undefined,
    api: `${api.host.includes(':') ? `[${api.host}]` : api.host}:${api.port}`,
    site: hostPort(env.WARREN_STEALTH_SITE || `127.0.0.1:${CORE_LOOPBACK.site}`, 'WARREN_STEALTH_SITE'),
    http: env.WARREN_STEALTH_HTTP ? hostPort(env.WARREN_STEALTH_HTTP, 'WARREN_STEALTH_HTTP') : undefined,
    v2rayBin: env.WARREN_V2RAY_BIN || 'v2ray',
    stateFile: path.join(stateDir, 'stealth-owners.json'),
    restartFile: path.resolve(env.WARREN_STEALTH_RESTART_FILE || path.join(stateDir, 'stealth-restart')),
  };
}
