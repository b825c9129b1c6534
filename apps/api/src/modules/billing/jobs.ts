import { createHash } from 'node:crypto';
import { PgBoss, fromPglite } from 'pg-boss';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import { type Database, pgliteOf } from '../../db/client.js';
import type { SandboxHost } from './repository.js';
import type { PassResult, RenewalsService } from './renewals.js';
import type { ReconciliationService } from './reconcile.js';
import { postbackRepository } from './repository.js';

/*
 * The job engine: pg-boss (https://github.com/timgit/pg-boss), chosen over graphile-worker
 * because it runs unchanged on both of our databases. On PostgreSQL it keeps its tables in its
 * own schema and its own small pool; on the embedded PGlite it runs in-process through its PGlite
 * adapter (`fromPglite`, `backend: 'pglite'`: the same SQL on PGlite's one connection, whose
 * queries wait for our transactions). graphile-worker needs LISTEN/NOTIFY and a pg pool, which
 * PGlite does not offer in-process. Checked first with a small experiment: pg-boss 12 starts on an
 * in-memory PGlite in ~150 ms, works a queue, retries a failed job.
 *
 * Queues:
 * - billing-pass (scheduled every minute): the renewal pass as of now — reminders, one
 *   billing-renew job per due renewal, "plan ended" mails and lapsed plans to free, mails to resend,
 *   old cards' detaches to try again.
 * - billing-renew: one renewal charge, queued soonest expiry first. Its job id is derived from
 *   (member, paid-until, attempt), so passes run twice or on several instances queue it once, and
 *   a pass reads only renewals not queued yet (subscription_renewals.queued_key); the charge itself is idempotent
 *   too (renewals.ts), so even a job worked twice charges once. Thrown errors (provider down) are
 *   retried by pg-boss with backoff; a refused card is not an error (the renewal schedule retries).
 * - postbacks (every minute): conversion postbacks that are due (their own backoff in the table).
 * - sandbox-webhooks (every minute): the sandbox re-sends unacknowledged webhooks.
 * - wg-key-reminders (every minute): the mail about a WireGuard key that expires within a day
 *   (issue 23; modules/wireguard/key-reminders.ts), once per key.
 * Every instance may run the workers: pg-boss hands each job to one of them (SKIP LOCKED), and a
 * cron slot makes one job however many instances schedule it.
 */
export const QUEUES = {
  pass: 'billing-pass',
  renew: 'billing-renew',
  postbacks: 'postbacks',
  sandbox: 'sandbox-webhooks',
  wgKeyReminders: 'wg-key-reminders',
} as const;
const QUEUE_OPTIONS: Record<
  string,
  { retryLimit: number; retryDelay: number; retryBackoff: boolean; expireInSeconds: number }
> = {
  [QUEUES.pass]: { retryLimit: 2, retryDelay: 30, retryBackoff: true, expireInSeconds: 600 },
  [QUEUES.renew]: { retryLimit: 5, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
  [QUEUES.postbacks]: { retryLimit: 1, retryDelay: 30, retryBackoff: false, expireInSeconds: 300 },
  [QUEUES.sandbox]: { retryLimit: 1, retryDelay: 15, retryBackoff: false, expireInSeconds: 300 },
  [QUEUES.wgKeyReminders]: { retryLimit: 1, retryDelay: 30, retryBackoff: false, expireInSeconds: 300 },
};

const MAX_POSTBACK_ATTEMPTS = 8;
/** Renewal jobs queued per statement, and statements per pass (the rest waits for the next pass, a minute later). */
const QUEUE_BATCH = 500;
const QUEUE_BATCHES = 40;

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
    else
      await postbacks.markFailedAttempt(
        p.id,
        attempts,
        error,
        MAX_POSTBACK_ATTEMPTS,
        Math.min(30 * 2 ** p.attempts, 6 * 3600),
      );
  }
  return due.length;
}

/** The sandbox provider re-sends webhooks the merchant has not acknowledged, like a real provider. */
export async function redeliverSandboxWebhooks(
  sandbox: SandboxHost,
  deliver: (body: string, signature: string) => Promise<number>,
): Promise<number> {
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

/** A UUID made from a key: the same key is the same job id, so a second send of it is refused by pg-boss. */
export function jobIdOf(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface RenewJob {
  userId: number;
  asOf: string;
}

export interface JobSummary {
  queue: string;
  id: string;
  state: string;
  data: unknown;
  startAfter: string;
  retryCount: number;
  output: unknown;
}

export interface JobEngineDeps {
  db: Database;
  database: Config['database'];
  renewals: RenewalsService;
  reconciliation: ReconciliationService;
  sandbox?: SandboxHost;
  /** Renewal jobs worked at once by this instance (JOBS_RENEW_CONCURRENCY). */
  renewConcurrency?: number;
  /** Renewals queued per statement (QUEUE_BATCH; tests make it small). */
  queueBatch?: number;
  /** The WireGuard key reminders (the VPN area's; issue 23): mails due as of a moment, answers how many went. */
  wgKeyReminders?: { sendDue(asOf: Date): Promise<number> };
}

export function jobEngine(deps: JobEngineDeps) {
  let started: Promise<PgBoss> | undefined;
  let background = false;
  let workers = false;

  const schemaName = () =>
    deps.database.kind === 'postgres' && deps.database.schema ? `${deps.database.schema}_jobs` : 'pgboss';

  async function boot(opts: { background: boolean }): Promise<PgBoss> {
    const common = { schema: schemaName(), supervise: opts.background, schedule: opts.background, migrate: true };
    const pglite = pgliteOf(deps.db);
    const boss = pglite
      ? new PgBoss({ ...common, db: fromPglite(pglite), backend: 'pglite' })
      : new PgBoss({
          ...common,
          connectionString: (deps.database as { url: string }).url,
          max: 4,
          application_name: 'warren-jobs',
        });
    boss.on('error', () => {
      /* reported by the failing call itself; a lost connection is retried by pg-boss */
    });
    await boss.start();
    for (const name of Object.values(QUEUES)) {
      await boss.createQueue(name, QUEUE_OPTIONS[name]).catch((err: { code?: string }) => {
        if (err.code !== '23505') throw err; // another instance created it at the same moment
      });
    }
    return boss;
  }
  /** Starts pg-boss once (lazily: the CLI and tests that never queue a job never create its schema). */
  const boss = () => (started ??= boot({ background }));

  /** One renewal job's work. */
  const renew = (data: RenewJob) => deps.renewals.renewOne(data.userId, new Date(data.asOf));

  /**
   * Queues one billing-renew job per renewal due as of `asOf` (once per member, period and
   * attempt), the soonest expiry first, in batches of QUEUE_BATCH, at most QUEUE_BATCHES per pass:
   * what was queued before is not read again (issue 22: a pass re-sent a 8,718-renewal backlog one
   * by one every minute, 16-129 s each, in user-id order). Two passes at once may both send a
   * batch: the job id made from the key makes it one job.
   */
  async function queueDue(asOf: Date): Promise<number> {
    const b = await boss();
    const batch = deps.queueBatch ?? QUEUE_BATCH;
    let queued = 0;
    for (let i = 0; i < QUEUE_BATCHES; i++) {
      const due = await deps.renewals.toQueue(asOf, batch);
      if (!due.length) break;
      await b.insert(
        QUEUES.renew,
        due.map((d) => ({
          id: jobIdOf(d.key),
          singletonKey: d.key,
          // pg-boss hands out jobs by priority, then creation time: a batch is created at one instant and
          // later passes may queue an earlier expiry (a retry), so the expiry itself (in minutes) orders them.
          priority: -Math.floor(d.expires_ms / 60_000),
          data: { userId: d.user_id, asOf: asOf.toISOString() } satisfies RenewJob,
        })),
      );
      await deps.renewals.markQueued(due);
      queued += due.length;
      if (due.length < batch) break;
    }
    return queued;
  }

  /** The pass (a job itself): mails to resend, reminders, renewals queued, plans ended. */
  async function pass(asOf: Date): Promise<Omit<PassResult, 'renewals'> & { queued: number }> {
    const resent = await deps.renewals.resendNotices();
    const reminders = await deps.renewals.sendReminders(asOf);
    const queued = await queueDue(asOf);
    const ended = await deps.renewals.endLapsed(asOf);
    // Old cards a card change could not detach at the provider at once (issue 23).
    await deps.renewals.retryDetaches(asOf);
    return { asOf: asOf.toISOString(), reminders, queued, ended, resent };
  }

  /** Works the billing-renew jobs that are ready, here and now (the CLI's pass; tests). */
  async function drainRenewals(): Promise<PassResult['renewals']> {
    const b = await boss();
    const results: PassResult['renewals'] = [];
    for (;;) {
      const jobs = await b.fetch<RenewJob>(QUEUES.renew, { batchSize: 10, includeMetadata: true });
      if (!jobs.length) return results;
      // A batch is the next ten by priority (the expiry), answered in no particular order.
      jobs.sort((x, y) => y.priority - x.priority);
      for (const job of jobs) {
        try {
          const r = await renew(job.data);
          results.push({ userId: job.data.userId, ...r });
          await b.complete(QUEUES.renew, job.id, r);
        } catch (err) {
          results.push({ userId: job.data.userId, outcome: 'pending', error: (err as Error).message });
          await b.fail(QUEUES.renew, job.id, { message: (err as Error).message });
        }
      }
    }
  }

  return {
    boss,
    /**
     * The renewal pass as of `asOf`, worked to the end in this process: `warren billing renew-due
     * --as-of`. Run concurrently (two processes, two instances), each renewal is still charged once.
     */
    async runPass(asOf: Date): Promise<PassResult> {
      const p = await pass(asOf);
      const renewals = await drainRenewals();
      return { asOf: p.asOf, reminders: p.reminders, renewals, ended: p.ended, resent: p.resent };
    },
    /** Starts the workers and the schedules in this instance (JOBS=true). */
    async startWorkers(opts: {
      deliverSandbox: (body: string, signature: string) => Promise<number>;
      log: FastifyBaseLogger;
    }): Promise<void> {
      if (workers) return;
      workers = true;
      // Maintenance and the cron clock run where workers run; a pg-boss started earlier without them (a job listed) restarts with them.
      if (started && !background) {
        const early = await started;
        started = undefined;
        await early.stop({ graceful: true, timeout: 10_000, close: true });
      }
      background = true;
      const b = await boss();
      const guard = (name: string, fn: () => Promise<unknown>) => async () => {
        try {
          return await fn();
        } catch (err) {
          opts.log.error({ err, queue: name }, 'job failed');
          throw err;
        }
      };
      // Several renewals at once per instance (each waits mostly on the provider and the database), so N
      // instances work N times as many; and while batches come back full the worker fetches again at
      // once: one job per fetch with a 5 s poll worked a backlog at 0.2 per second per worker (bench).
      // Each job of a batch completes or fails (and is retried) on its own.
      await b.work<
        RenewJob,
        unknown,
        {
          pollingIntervalSeconds: number;
          batchSize: number;
          burstWhenBatchFull: true;
          burstWhenReadyExceeds: number;
          perJobResults: true;
        }
      >(
        QUEUES.renew,
        {
          pollingIntervalSeconds: 5,
          batchSize: deps.renewConcurrency ?? 4,
          burstWhenBatchFull: true,
          // pg-boss ignores burstWhenBatchFull at batchSize 1 (JOBS_RENEW_CONCURRENCY=1): there a
          // backlog was worked one job per 5 s poll (0.2/s, the data-scale bench's one-worker run).
          // Burst while its queue stats say more than one job is ready, at any batch size.
          burstWhenReadyExceeds: 1,
          perJobResults: true,
        },
        async (jobs) =>
          Promise.all(
            jobs.map(async (job) => {
              try {
                return { id: job.id, status: 'completed' as const, output: await renew(job.data) };
              } catch (err) {
                opts.log.error({ err, queue: QUEUES.renew }, 'job failed');
                return { id: job.id, status: 'failed' as const, output: { message: (err as Error).message } };
              }
            }),
          ),
      );
      await b.work(
        QUEUES.pass,
        { pollingIntervalSeconds: 5 },
        guard(QUEUES.pass, () => pass(new Date())),
      );
      await b.work(
        QUEUES.postbacks,
        { pollingIntervalSeconds: 5 },
        guard(QUEUES.postbacks, () => sendDuePostbacks(deps.db)),
      );
      if (deps.sandbox) {
        const sandbox = deps.sandbox;
        await b.work(
          QUEUES.sandbox,
          { pollingIntervalSeconds: 5 },
          guard(QUEUES.sandbox, () => redeliverSandboxWebhooks(sandbox, opts.deliverSandbox)),
        );
        await b.schedule(QUEUES.sandbox, '* * * * *');
      }
      if (deps.wgKeyReminders) {
        const reminders = deps.wgKeyReminders;
        await b.work(
          QUEUES.wgKeyReminders,
          { pollingIntervalSeconds: 5 },
          guard(QUEUES.wgKeyReminders, () => reminders.sendDue(new Date())),
        );
        await b.schedule(QUEUES.wgKeyReminders, '* * * * *');
      }
      await b.schedule(QUEUES.pass, '* * * * *');
      await b.schedule(QUEUES.postbacks, '* * * * *');
      // A first pass at start: the old loop's work (lapsed plans) does not wait for the next minute.
      await b.send(QUEUES.pass, {}, { singletonKey: 'start', singletonSeconds: 60 });
    },
    /** Due and failed jobs (the operator's `warren jobs`), optionally one member's. */
    async list(opts: { userId?: number; all?: boolean } = {}): Promise<JobSummary[]> {
      const b = await boss();
      const out: JobSummary[] = [];
      for (const name of Object.values(QUEUES)) {
        for (const j of await b.findJobs<{ userId?: number }>(
          name,
          opts.userId !== undefined ? { data: { userId: opts.userId } } : {},
        )) {
          if (!opts.all && !['created', 'retry', 'active', 'failed'].includes(j.state)) continue;
          out.push({
            queue: name,
            id: j.id,
            state: j.state,
            data: j.data,
            startAfter: new Date(j.startAfter).toISOString(),
            retryCount: j.retryCount,
            output: j.output,
          });
        }
      }
      return out.sort((a, b) => a.startAfter.localeCompare(b.startAfter));
    },
    /** Retries one failed job now (the operator console): 'missing' for an unknown job, 'not-failed' when it is not failed. */
    async retry(queue: string, id: string): Promise<'retried' | 'missing' | 'not-failed'> {
      if (!(Object.values(QUEUES) as string[]).includes(queue)) return 'missing';
      const b = await boss();
      const job = await b.getJobById(queue, id);
      if (!job) return 'missing';
      if (job.state !== 'failed') return 'not-failed';
      await b.retry(queue, id);
      return 'retried';
    },
    /** Stops pg-boss (workers finish their job first); the database stays open. */
    async stop(): Promise<void> {
      if (!started) return;
      const b = await started.catch(() => undefined);
      started = undefined;
      await b?.stop({ graceful: true, timeout: 10_000, close: true });
    },
  };
}
export type JobEngine = ReturnType<typeof jobEngine>;
