import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, ApiError } from './api-client.js';
import { NodeToken } from './token.js';

/**
 * A new node token without a restart (issue 22): the API refuses the old token with 401, the agent
 * reads its token file again and, when it holds another token, repeats the call with it. A real
 * HTTP server on loopback stands in for the API's node routes (it accepts one token at a time).
 */
let server: http.Server;
let accepted = 'token-one';
const seen: string[] = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-agent-token-'));
const file = path.join(dir, 'node-token');

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    seen.push(auth);
    res.setHeader('content-type', 'application/json');
    if (auth !== `Bearer ${accepted}`) {
      res.statusCode = 401;
      res.end(JSON.stringify({ message: 'Unknown node token.' }));
      return;
    }
    req.resume();
    req.on('end', () => res.end(JSON.stringify({ data: { accepted: 0 } })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const report = { load: 0, activePeers: 0, peers: [] };

describe('the node token', () => {
  it('is read again from its file when the API answers 401, and the call repeated once with the new one', async () => {
    fs.writeFileSync(file, 'token-one\n', { mode: 0o600 });
    const token = new NodeToken('token-one', file);
    let told = 0;
    const api = new ApiClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token,
      onNewToken: () => told++,
    });
    expect(await api.report(report)).toBe(0);

    // The operator issues a new token (npx warren vpn node-token): the old one is refused at once.
    accepted = 'token-two';
    seen.length = 0;
    // Not yet in the file: the 401 stands (nothing new to try), and the old token is kept.
    await expect(api.report(report)).rejects.toMatchObject({ status: 401 });
    expect(seen).toEqual(['Bearer token-one']);
    expect(token.value).toBe('token-one');

    // Written to the file: the next call is refused, re-reads the file and succeeds with the new token.
    fs.writeFileSync(file, 'token-two\n');
    seen.length = 0;
    expect(await api.report(report)).toBe(0);
    expect(seen).toEqual(['Bearer token-one', 'Bearer token-two']);
    expect(told).toBe(1);
    seen.length = 0;
    expect(await api.report(report)).toBe(0);
    expect(seen).toEqual(['Bearer token-two']);

    // Two calls refused at once: the file is read once, both repeat with the new token.
    accepted = 'token-three';
    fs.writeFileSync(file, 'token-three\n');
    seen.length = 0;
    expect(await Promise.all([api.report(report), api.report(report)])).toEqual([0, 0]);
    expect(seen.filter((s) => s === 'Bearer token-three')).toHaveLength(2);
    expect(told).toBe(2);
  });

  it('a token given without a file (WARREN_NODE_TOKEN) cannot change: the 401 is the answer', async () => {
    const api = new ApiClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: 'stale',
    });
    await expect(api.report(report)).rejects.toBeInstanceOf(ApiError);
    const fixed = new NodeToken('stale');
    expect(fixed.reload()).toBe(false);
    // An empty or missing file is not a token either.
    expect(new NodeToken('stale', path.join(dir, 'missing')).reload()).toBe(false);
    fs.writeFileSync(path.join(dir, 'empty'), '\n');
    expect(new NodeToken('stale', path.join(dir, 'empty')).reload()).toBe(false);
  });
});
