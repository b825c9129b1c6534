import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.js';
import type { SandboxProvider } from '../../payments/sandbox.js';
import type { ReconciliationService } from './reconcile.js';
import { postbackRepository } from './repository.js';

const MAX_POSTBACK_ATTEMPTS = 8;

/** Retries conversion postbacks with exponential backoff (30 s, 1 min, 2 min … capped at 6 h), recording each attempt. */
export async function sendDuePostbacks(db: Database, fetchImpl: typeof fetch = fetch): Promise<number> {
  const postbacks = postbackRepository(db);
  const due = await postbacks.due();
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
    await postbacks.recordAttempt(p.id, statusCode, error);
    const attempts = p.attempts + 1;
    if (!error) await postbacks.markSent(p.id, attempts);
    else await postbacks.markFailedAttempt(p.id, attempts, error, MAX_POSTBACK_ATTEMPTS, Math.min(30 * 2 ** p.attempts, 6 * 3600));
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
  reconciliation: ReconciliationService;
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
        await opts.reconciliation.expireSubscriptions();
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
