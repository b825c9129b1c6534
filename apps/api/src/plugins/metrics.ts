import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../lib/errors.js';
import { type Metrics, methodLabel } from '../lib/metrics.js';
import { hashToken, safeEqual } from '../lib/secrets.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A label shared by many routes (the built web app's files, plugins/spa.ts) instead of each route's own. */
    metricsRoute?: string;
  }
}

/**
 * HTTP metrics of the public app: every answer counted and timed by its route *pattern*
 * (`/api/nodes/:id`, never the URL asked for), method and status. Requests that match no route
 * (unknown paths, the web app's pages answered by the not-found handler) share one `unmatched`
 * label, so no URL creates a series.
 *
 * `/metrics` on the public port is a plain 404 (an explicit route, so the web app's page is
 * never rendered for it): the figures are served only by the metrics listener below.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    // The built files' routes carry one shared label (plugins/spa.ts), not one series each.
    const route = request.routeOptions.config?.metricsRoute ?? request.routeOptions.url ?? 'unmatched';
    const labels = { method: methodLabel(request.method), route, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.status(404).send({ message: 'Not found.' }),
  );
}

/** Counts refused provider webhooks (bad signature or payload: a 4xx domain error) around the reconciliation's handler. */
export function countRejectedWebhooks<
  R extends { handleWebhook: (provider: string, ...rest: never[]) => Promise<unknown> },
>(reconciliation: R, metrics: Metrics): R {
  const handle = reconciliation.handleWebhook.bind(reconciliation) as R['handleWebhook'];
  return {
    ...reconciliation,
    handleWebhook: (async (provider: string, ...rest: never[]) => {
      try {
        return await handle(provider, ...rest);
      } catch (err) {
        if (err instanceof DomainError && err.status >= 400 && err.status < 500)
          metrics.webhooksRejected.inc({ provider });
        throw err;
      }
    }) as R['handleWebhook'],
  };
}

export interface MetricsListenerOptions {
  host: string;
  port: number;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token?: string;
}

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/**
 * The metrics listener: its own port (127.0.0.1 by default), `GET /metrics` only, in
 * Prometheus' text format, and a bearer token when configured. Kept off the public port so
 * nothing in front of the app (a load balancer, a CDN) can expose it by accident.
 */
export async function startMetricsListener(metrics: Metrics, o: MetricsListenerOptions): Promise<MetricsListener> {
  metrics.collectDefaults();
  const expected = o.token ? hashToken(o.token) : undefined;
  const server = http.createServer((req, res) => {
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return send(404, 'Not found.\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(405, 'Method not allowed.\n', { allow: 'GET, HEAD' });
    if (expected) {
      const given = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!given || !safeEqual(hashToken(given), expected))
        return send(401, 'Unauthorized.\n', { 'www-authenticate': 'Bearer realm="metrics"' });
    }
    metrics.registry.metrics().then(
      (text) => send(200, text, { 'content-type': metrics.registry.contentType }),
      () => send(500, 'Metrics could not be collected.\n'),
    );
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
