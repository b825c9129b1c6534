import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope, publicBrand } from '@warren/contract';
import type { Database } from '../../db/client.js';
import type { Mailer } from '../../mail/mailer.js';
import { systemRepository } from './repository.js';

export interface SystemRoutesDeps {
  db: Database;
  mailer: Mailer;
  devTools: boolean;
  healthCacheMs: number;
  /** True once a shutdown began (app.drain): the instance is leaving and says so before it stops accepting. */
  draining: () => boolean;
  brandOf: (request: FastifyRequest) => z.infer<typeof publicBrand>;
}

const HEALTHY_BODY = JSON.stringify({ data: { status: 'ok', db: 'ok' } });
const storedMail = z.object({
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  sentAt: z.string(),
  /** Attached files, content in base64 (the receipt PDF). */
  attachments: z.array(z.object({ filename: z.string(), contentType: z.string(), content: z.string() })).optional(),
});

export async function systemRoutes(
  fastify: FastifyInstance,
  { db, mailer, devTools, brandOf, healthCacheMs, draining }: SystemRoutesDeps,
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  /**
   * Load balancers poll this from every instance, often: concurrent checks share one database
   * round trip, and a success is trusted for healthCacheMs. Failures are never cached.
   */
  let healthyAt = 0;
  let inflight: Promise<boolean> | undefined;
  const ping = () =>
    (inflight ??= new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 2000);
      timer.unref();
      systemRepository(db)
        .ping()
        .then(
          () => resolve(true),
          () => resolve(false),
        )
        .finally(() => clearTimeout(timer));
    }).finally(() => (inflight = undefined)));

  app.get(
    '/api/health',
    {
      schema: {
        tags: ['system'],
        response: {
          200: envelope(z.object({ status: z.literal('ok'), db: z.literal('ok') })),
          503: z.object({ message: z.string(), data: z.object({ status: z.string(), db: z.string() }) }),
        },
      },
    },
    async (_request, reply) => {
      if (draining())
        return reply
          .status(503)
          .send({ message: 'This instance is shutting down.', data: { status: 'draining', db: 'unknown' } });
      if (Date.now() - healthyAt >= healthCacheMs) {
        if (!(await ping()))
          return reply
            .status(503)
            .header('retry-after', '5')
            .send({ message: 'The database is unreachable.', data: { status: 'degraded', db: 'unreachable' } });
        healthyAt = Date.now();
      }
      // Pre-serialised: the hottest route answers the same bytes every time.
      return reply.type('application/json; charset=utf-8').send(HEALTHY_BODY as never); // a string is sent as is, not re-serialised
    },
  );

  app.get(
    '/api/brand',
    { schema: { tags: ['system'], response: { 200: envelope(publicBrand) } } },
    async (request) => ({ data: brandOf(request) }),
  );

  if (!devTools || !mailer.list) return;
  const list = mailer.list.bind(mailer);

  app.get(
    '/api/dev/mail',
    {
      schema: {
        tags: ['development'],
        querystring: z.object({ to: z.string().trim().min(1).max(254) }),
        response: { 200: envelope(z.array(storedMail)) },
      },
    },
    async (request) => ({ data: list(request.query.to) }),
  );

  /** A tiny inbox for development: what the outbox holds for one address. */
  app.get(
    '/dev/mail',
    { schema: { hide: true, querystring: z.object({ to: z.string().trim().max(254).optional() }) } },
    async (request, reply) => {
      const to = request.query.to ?? '';
      const mails = to ? list(to).reverse() : [];
      const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      const items =
        mails
          .map(
            (m) =>
              `<article><h2>${esc(m.subject)}</h2><p class="meta">${esc(m.sentAt)} → ${esc(m.to)}</p><iframe sandbox title="${esc(m.subject)}" srcdoc="${esc(m.html)}"></iframe><details><summary>Text</summary><pre>${esc(m.text)}</pre></details></article>`,
          )
          .join('') || (to ? '<p>No mail for this address yet.</p>' : '');
      return reply.type('text/html; charset=utf-8')
        .send(`<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Dev mail</title>
<style>body{font-family:system-ui,sans-serif;max-width:760px;margin:24px auto;padding:0 12px;color:#222}iframe{width:100%;height:420px;border:1px solid #ddd;border-radius:8px}article{margin-bottom:32px}.meta{color:#666;font-size:13px}</style>
<h1>Development outbox</h1><form><label>Address <input name="to" value="${esc(to)}" type="email" required></label> <button>Show</button></form>${items}</html>`);
    },
  );
}
