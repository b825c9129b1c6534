import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../../lib/errors.js';
import { escapeHtml } from '../../lib/html.js';
import type { SandboxHost } from './repository.js';
import { fill, sandboxLanguage, sandboxTexts } from '../../payments/sandbox-page.js';
import type { ReconciliationService } from './reconcile.js';

/**
 * Provider webhooks and the sandbox provider's hosted page. Registered in their own scope:
 * bodies stay raw buffers here, because signatures are computed over the exact bytes sent.
 */
export async function webhookRoutes(
  app: FastifyInstance,
  opts: {
    reconciliation: ReconciliationService;
    sandbox?: SandboxHost;
    deliverSandbox: (body: string, signature: string) => Promise<number>;
    /** The providers this deployment has configured: any other name in the path is a 404. */
    providerIds: ReadonlySet<string>;
  },
) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const fieldsOf = (raw: Buffer, contentType: string | undefined): Record<string, unknown> => {
    const text = raw.toString('utf8');
    if (contentType?.includes('application/x-www-form-urlencoded'))
      return Object.fromEntries(new URLSearchParams(text));
    if (contentType?.includes('json')) {
      try {
        const parsed = JSON.parse(text);
        return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
      } catch {
        return {};
      }
    }
    return {};
  };

  app.post(
    '/api/billing/webhooks/:provider',
    {
      schema: {
        tags: ['billing'],
        summary: 'Payment provider notifications (signed)',
        params: z.object({ provider: z.string().regex(/^[a-z0-9]{2,20}$/) }),
      },
    },
    async (request, reply) => {
      const { provider } = request.params as { provider: string };
      // A Set, not a lookup on an object: `constructor` or `__proto__` name no provider.
      if (!opts.providerIds.has(provider)) throw new NotFoundError('Unknown payment provider.');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const ack = await opts.reconciliation.handleWebhook(provider, {
        rawBody: raw,
        headers: request.headers,
        fields: fieldsOf(raw, request.headers['content-type']),
      });
      return reply.type(ack.contentType).send(ack.body);
    },
  );

  const sandbox = opts.sandbox;
  if (!sandbox) return;
  const page = (
    title: string,
    body: string,
    lang = 'en',
  ) => `<!doctype html><html lang="${lang}"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/sandbox/checkout.css"><main class="card">${body}</main><script src="/sandbox/checkout.js"></script></html>`;
  const params = z.object({ id: z.string().regex(/^sbx_[a-f0-9]{32}$/) });

  app.get('/sandbox/checkout.css', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/css')
      .send(`body{margin:0;min-height:100vh;display:grid;place-items:center;background:#eef1f8;font-family:Inter,system-ui,sans-serif;color:#1b2333}
.card{background:#fff;border-radius:16px;box-shadow:0 10px 30px rgba(20,30,60,.12);padding:32px;width:min(420px,calc(100vw - 32px));box-sizing:border-box}
.badge{display:inline-block;background:#fff4d6;color:#8a5a00;border-radius:999px;padding:4px 10px;font-size:12px;font-weight:600}
h1{font-size:20px;margin:16px 0 4px}.amount{font-size:36px;font-weight:700;margin:12px 0 24px}.row{display:flex;gap:12px}
button{flex:1;border:0;border-radius:10px;padding:14px;font-size:16px;font-weight:600;cursor:pointer}button:focus-visible{outline:3px solid #4c6ef5;outline-offset:2px}
.pay{background:#2f9e44;color:#fff}.decline{background:#f1f3f5;color:#c92a2a}.muted{color:#667;font-size:13px;margin-top:20px}`),
  );
  app.get('/sandbox/checkout.js', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/javascript')
      .send(`(function(){var d=document.getElementById('done');if(!d)return;var url=d.getAttribute('data-return');var ok=d.getAttribute('data-status')==='succeeded';
try{var target=new URL(url).origin;var msg={event:ok?'paymentSuccess':'paymentFailed'};if(window.opener&&ok)window.opener.postMessage(msg,target);if(window.parent!==window&&ok)window.parent.postMessage(msg,target);}catch(e){}
if(window.opener&&ok){window.close();}location.replace(url);})();`),
  );

  // The page speaks the buyer's language (`?lang=` from createPayment); the form posts back to the same address.
  const langOf = (request: { query: unknown }) =>
    sandboxLanguage((request.query as { lang?: unknown } | undefined)?.lang);

  app.get('/sandbox/checkout/:id', { schema: { hide: true, params } }, async (request, reply) => {
    const lang = langOf(request);
    const tx = sandboxTexts(lang);
    const row = await sandbox.find((request.params as { id: string }).id);
    if (!row)
      return reply
        .status(404)
        .type('text/html')
        .send(page(tx.notFoundTitle, `<h1>${escapeHtml(tx.notFound)}</h1>`, lang));
    const amount = `${(row.amount_minor / 100).toFixed(2)} ${row.currency}`;
    if (row.status !== 'open')
      return reply
        .type('text/html')
        .send(
          page(
            fill(tx.payTitle, { amount }),
            `<h1>${escapeHtml(fill(tx.done, { status: tx.status[row.status] }))}</h1>`,
            lang,
          ),
        );
    return reply.type('text/html').send(
      page(
        fill(tx.payTitle, { amount }),
        `<span class="badge">${escapeHtml(tx.badge)}</span><h1>${escapeHtml(row.description)}</h1><div class="amount" data-testid="amount">${escapeHtml(amount)}</div>
<form method="post" class="row"><button class="pay" name="outcome" value="pay">${escapeHtml(row.amount_minor === 0 ? tx.saveCard : tx.pay)}</button><button class="decline" name="outcome" value="decline">${escapeHtml(tx.decline)}</button></form>
${row.save_card ? `<p class="muted" data-testid="saves-card">${escapeHtml(row.amount_minor === 0 ? tx.saveNote : tx.savesCard)}</p>` : ''}<p class="muted">${escapeHtml(fill(tx.payment, { id: row.id }))}</p>`,
        lang,
      ),
    );
  });

  app.post('/sandbox/checkout/:id', { schema: { hide: true, params } }, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
    const outcome = new URLSearchParams(raw).get('outcome');
    const lang = langOf(request);
    const tx = sandboxTexts(lang);
    if (outcome !== 'pay' && outcome !== 'decline')
      return reply
        .status(400)
        .type('text/html')
        .send(page(tx.badRequest, `<h1>${escapeHtml(tx.chooseOne)}</h1>`, lang));
    const { row, event } = await sandbox.complete((request.params as { id: string }).id, outcome);
    if (!row)
      return reply
        .status(404)
        .type('text/html')
        .send(page(tx.notFoundTitle, `<h1>${escapeHtml(tx.notFound)}</h1>`, lang));
    if (event) {
      // Deliver now, like a provider notifying right after capture; the retry loop covers failures.
      const { body, signature } = sandbox.signedDelivery(event);
      const status = await opts.deliverSandbox(body, signature).catch(() => 0);
      if (status >= 200 && status < 300) await sandbox.acknowledge(row.id, event.id);
    }
    const status = row.status === 'paid' ? 'succeeded' : 'failed';
    const url = new URL(row.return_url);
    url.searchParams.set('redirect_status', status);
    return reply
      .type('text/html')
      .send(
        page(
          tx.returning,
          `<h1>${escapeHtml(status === 'succeeded' ? tx.complete : tx.declined)}</h1><p id="done" data-status="${status}" data-return="${escapeHtml(url.href)}">${escapeHtml(tx.returningText)} <a href="${escapeHtml(url.href)}">${escapeHtml(tx.continue)}</a></p>`,
          lang,
        ),
      );
  });
}
