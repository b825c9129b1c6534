import net from 'node:net';

/** A Host header that passed parseHost: a lower-case host name or [IPv6 literal], and a port if one was given. */
export interface ParsedHost {
  hostname: string;
  port?: number;
}

// RFC 3986 host[:port], stricter where no real Host needs the freedom: a reg-name of letters,
// digits, `.`, `-` and `_` (DNS names; no percent-encoding or sub-delimiters), or an IPv6
// literal in brackets; a port of 1-5 digits, 1-65535. Everything else is malformed: userinfo
// (`@`), `#`, `/`, `?`, `\`, spaces, a list of hosts, an empty value or an empty port.
const REG_NAME_HOST = /^([a-z0-9_][a-z0-9_.-]{0,252})(?::(\d{1,5}))?$/;
const IPV6_HOST = /^\[([0-9a-f:.]{2,45})\](?::(\d{1,5}))?$/;

/** Parses a Host header (or an authority) strictly; null when it is malformed. */
export function parseHost(value: string): ParsedHost | null {
  const v = value.toLowerCase();
  let hostname: string;
  let port: string | undefined;
  const v6 = IPV6_HOST.exec(v);
  if (v6) {
    if (!net.isIPv6(v6[1]!)) return null;
    hostname = `[${v6[1]}]`;
    port = v6[2];
  } else {
    const name = REG_NAME_HOST.exec(v);
    if (!name || name[1]!.includes('..')) return null;
    hostname = name[1]!;
    port = name[2];
  }
  if (port === undefined) return { hostname };
  const n = Number(port);
  return n >= 1 && n <= 65535 ? { hostname, port: n } : null;
}
