import { z } from 'zod';
import { langCodeQuery } from './locations.js';

/**
 * The WireGuard port a customer picks (issue 23, as Mullvad's config generator offers 51820, 53 and
 * 443): a node listens on one port and redirects its extra public UDP ports to it (`warren-agent
 * setup --wg-extra-ports`, default 53 and 443). A location offers the port its endpoint names
 * first (the default: what a config without a choice names), then the extra ports every server of
 * the location reports in place, so a port is offered only where any server a config may name
 * takes it (the intersection: a location whose servers differ offers what they share).
 */

export const WG_PORT_MESSAGE = 'The port must be a whole number from 1 to 65535.';
export const wgPort = z
  .string({ error: WG_PORT_MESSAGE })
  .regex(/^\d{1,5}$/, { error: WG_PORT_MESSAGE })
  .transform(Number)
  .refine((n) => n >= 1 && n <= 65535, { error: WG_PORT_MESSAGE });

/**
 * `GET setup/wg/get?port=N` (optional): the locations that take port N answer with endpoints on
 * it; the others as not available (no endpoint). A malformed port, or one no location offers, is a
 * 422 with a `port` field message. Without it, every endpoint names its server's own port.
 */
export const wgOverviewQuery = langCodeQuery.extend({ port: wgPort.optional() });
export type WgOverviewQuery = z.infer<typeof wgOverviewQuery>;

/** The ports of a location: the default (its endpoint's) first, then the extra ones, sorted, each once. */
export function offeredWgPorts(defaultPort: number, extra: readonly number[]): number[] {
  return [defaultPort, ...[...new Set(extra)].filter((p) => p !== defaultPort).sort((a, b) => a - b)];
}

/** The port an endpoint names ("host:port", "[v6]:port"); null when it names none. */
export function endpointPort(endpoint: string): number | null {
  const m = /:(\d{1,5})$/.exec(endpoint);
  return m ? Number(m[1]) : null;
}

/** The same endpoint on another port: "198.51.100.7:51820" → "198.51.100.7:443", "[2001:db8::7]:51820" → "[2001:db8::7]:443". */
export function endpointWithPort(endpoint: string, port: number): string {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(WG_PORT_MESSAGE);
  const host = endpoint.replace(/:\d{1,5}$/, '');
  return `${host}:${port}`;
}
