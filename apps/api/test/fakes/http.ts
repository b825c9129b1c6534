import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Plumbing of the local provider fakes: a node:http server on 127.0.0.1 with an ephemeral port,
 * and real HTTP deliveries of notifications to the merchant (only ever to loopback).
 */
export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  form: URLSearchParams;
}
export interface FakeResponse {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

export interface FakeServer {
  url: string;
  /** Every request the fake received, in order. */
  requests: FakeRequest[];
  close(): Promise<void>;
}

export async function startFake(
  handle: (req: FakeRequest) => FakeResponse | Promise<FakeResponse>,
): Promise<FakeServer> {
  const requests: FakeRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const body = Buffer.concat(chunks).toString('utf8');
      const fr: FakeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        form: new URLSearchParams(body),
      };
      requests.push(fr);
      let out: FakeResponse;
      try {
        out = await handle(fr);
      } catch (err) {
        out = { status: 500, json: { error: String(err) } };
      }
      const payload = out.json !== undefined ? JSON.stringify(out.json) : (out.text ?? '');
      res.writeHead(out.status ?? 200, {
        'content-type': out.json !== undefined ? 'application/json' : 'text/plain',
        ...out.headers,
      });
      res.end(payload);
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Delivery {
  status: number;
  body: string;
}

/**
 * POSTs a notification to the merchant's URL over real HTTP. Hosts like proxy.localhost do not
 * resolve everywhere, so like `curl --resolve` we always connect to 127.0.0.1 and keep the URL's
 * Host header; a URL that is not on a loopback name is refused (no test talks to the internet).
 */
export function deliver(target: string, body: string, headers: Record<string, string>): Promise<Delivery> {
  const url = new URL(target);
  if (!/^(localhost|127\.0\.0\.1|[a-z0-9.-]+\.localhost)$/.test(url.hostname))
    throw new Error(`refusing to deliver to ${url.hostname}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: Number(url.port || 80),
        path: url.pathname + url.search,
        method: 'POST',
        headers: { host: url.host, 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
