import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import type { SandboxProvider } from '../../payments/sandbox.js';
import type { BillingService } from './service.js';

const MAX_POSTBACK_ATTEMPTS = 8;

/** Retries conversion postbacks with exponential backoff (30 s, 1 min, 2 min … capped at 6 h), recording each attempt. */
export async function sendDuePostbacks(db: Database, fetchImpl: typeof fetch = fetch): Promise<number> {
  const due = await db.query<{ id: number; url: string; attempts: number }>(
    `select id, url, attempts from conversion_postbacks where status = 'pending' and next_attempt_at <= now() order by id limit 50`,
  );
  for (const p of due) {
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetchImpl(p.url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(5000) });
      statusCode = res.status;
      await res.body?.cancel();
      if (res.status >= 400) error = `HTTP ${res.status}`;
    } catch (err) {
      error = (err as Error).message.slice(0, 300);
    }
    await db.query('insert into postback_attempts (postback_id, status_code, error) values ($1, $2, $3)', [p.id, statusCode, error]);
    const attempts = p.attempts + 1;
    if (!error) {
      await db.query(`update conversion_postbacks set status = 'sent', attempts = $2, last_error = null where id = $1`, [p.id, attempts]);
    } else {
      const delayS = Math.min(30 * 2 ** p.attempts, 6 * 3600);
      await db.query(
        `update conversion_postbacks set attempts = $2, last_error = $3, status = case when $2::int >= $4::int then 'failed' else 'pending' end,
           next_attempt_at = now() + ($5 || ' seconds')::interval where id = $1`,
        [p.id, attempts, error, MAX_POSTBACK_ATTEMPTS, String(delayS)],
      );
    }
  }
  return due.length;
}

/** The sandbox provider re-sends webhooks the merchant has not acknowledged, like a real provider. */
export async function redeliverSandboxWebhooks(sandbox: SandboxProvider, deliver: (body: string, signature: string) => Promise<number>): Promise<number> {
  let delivered = 0;
  for (const { row, event } of await sandbox.undelivered()) {
    const { body, signature } = sandbox.signedDelivery(event);
    const status = await deliver(body, signature).catch(() => 0);
    if (status >= 200 && status < 300) {
      await sandbox.acknowledge(row.id, event.id);
      delivered++;
    }
  }
  return delivered;
}

/**
 * Periodic work of the billing area. Every statement is idempotent, so several API instances
 * may run it at once.
 */
export function startBillingJobs(opts: {
  db: Database;
  billing: BillingService;
  sandbox?: SandboxProvider;
  deliverSandbox: (body: string, signature: string) => Promise<number>;
  log: FastifyBaseLogger;
  intervalMs?: number;
}): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    running = (async () => {
      try {
        await opts.billing.expireSubscriptions();
        await sendDuePostbacks(opts.db);
        if (opts.sandbox) await redeliverSandboxWebhooks(opts.sandbox, opts.deliverSandbox);
      } catch (err) {
        opts.log.error({ err }, 'billing job failed');
      }
    })();
  };
  const timer = setInterval(tick, opts.intervalMs ?? 15_000);
  timer.unref();
  setImmediate(tick);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
