import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectedClients, countClients, killSessions } from './openvpn-management.js';

// The answer OpenVPN 2.6 gives to `status 2` (two clients; addresses from the documentation ranges).
const STATUS_2 = [
  'TITLE,OpenVPN 2.6.3 x86_64-pc-linux-gnu',
  'TIME,2026-11-28 08:30:00,1795854600',
  'HEADER,CLIENT_LIST,Common Name,Real Address,Virtual Address,Virtual IPv6 Address,Bytes Received,Bytes Sent,Connected Since,Connected Since (time_t),Username,Client ID,Peer ID,Data Channel Cipher',
  'CLIENT_LIST,client,192.0.2.10:50000,10.8.0.2,,4000,5000,2026-11-28 08:29:00,1795854540,w1a2b3c4d5,0,0,AES-256-GCM',
  'CLIENT_LIST,client,198.51.100.7:41000,10.8.0.3,,100,200,2026-11-28 08:29:30,1795854570,w9z8y7x6w5,1,1,AES-256-GCM',
  'HEADER,ROUTING_TABLE,Virtual Address,Common Name,Real Address,Last Ref,Last Ref (time_t)',
  'ROUTING_TABLE,10.8.0.2,client,192.0.2.10:50000,2026-11-28 08:29:59,1795854599',
  'GLOBAL_STATS,Max bcast/mcast queue length,0',
  'END',
  '',
].join('\r\n');

/**
 * A stand-in for an OpenVPN server's management socket (a test double: the real server is in the
 * tunnel suite, e2e/tunnel/services.test.ts). Like OpenVPN it serves one client at a time: a second
 * connection while one is open is refused, which is why calls to one socket must queue.
 */
function fakeManagement(socket: string) {
  const log: string[] = [];
  let busy = false;
  const server = net.createServer((c) => {
    if (busy) return c.destroy();
    busy = true;
    c.on('close', () => (busy = false));
    c.write(">INFO:OpenVPN Management Interface Version 5 -- type 'help' for more info\r\n");
    c.on('data', (d) => {
      for (const line of d.toString().split('\n').filter(Boolean)) {
        log.push(line);
        if (line === 'status 2') c.write(STATUS_2);
        else if (line.startsWith('kill '))
          c.write(`SUCCESS: common name '${line.slice(5)}' found, 1 client(s) killed\r\n`);
      }
    });
  });
  return new Promise<{ log: string[]; close: () => Promise<void> }>((resolve) =>
    server.listen(socket, () => resolve({ log, close: () => new Promise((r) => server.close(() => r())) })),
  );
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const socketPath = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ovpn-mgmt-'));
  dirs.push(d);
  return path.join(d, 'mgmt.sock');
};

describe('OpenVPN management', () => {
  it('counts the CLIENT_LIST rows of a status 2 answer, not its header', () => {
    expect(countClients(STATUS_2)).toBe(2);
    expect(countClients('TITLE,x\r\nHEADER,CLIENT_LIST,a\r\nEND\r\n')).toBe(0);
  });

  it('a scrape and a revocation at the same moment both get through a one-client socket', async () => {
    const socket = socketPath();
    const m = await fakeManagement(socket);
    try {
      const [count] = await Promise.all([
        connectedClients(socket),
        killSessions(socket, ['w1a2b3c4d5']),
        connectedClients(socket),
      ]);
      expect(count).toBe(2);
      expect(m.log.filter((l) => l.startsWith('kill '))).toEqual(['kill w1a2b3c4d5']);
      expect(m.log.filter((l) => l === 'status 2')).toHaveLength(2);
    } finally {
      await m.close();
    }
  });

  it('a server that does not answer gives no count rather than zero', async () => {
    expect(await connectedClients(path.join(socketPath(), 'missing'))).toBeUndefined();
  });
});
