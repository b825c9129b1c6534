import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { buildInfo } from './build-info.js';

/**
 * The API's Prometheus metrics (prom-client), one registry per service set (composition.ts), so
 * two apps in one process (tests) never mix their figures. Served only by the metrics listener
 * (plugins/metrics.ts), never on the public port.
 *
 * Label values are always from small fixed sets (route patterns, status codes, provider ids,
 * brand ids, SQL verbs): nothing a client writes becomes a label, so no request can create series.
 */
export interface ScrapeSample {
  labels?: Record<string, string>;
  value: number;
}

export const STAFF_SIGN_IN_FAILURES = ['not-staff', 'password', 'code', 'two-factor-off', 'disabled'] as const;
export type StaffSignInFailure = (typeof STAFF_SIGN_IN_FAILURES)[number];

/** Request latency buckets in seconds; long polls (/api/nodes/desired waits up to 25 s) land in the top ones. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const DB_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** What the scrape-time gauges read (through repositories; composition.ts passes them). */
export interface MetricsSources {
  /** Paid plans in force, by tariff. */
  activeSubscriptions?: () => Promise<{ tariff: string; count: number }[]>;
  /** The staff audit chain's last seq (its head table). */
  staffAuditHead?: () => Promise<number>;
  /** Jobs by queue and state (ready, deferred, blocked, active, failed). */
  jobQueues?: () => Promise<{ queue: string; state: string; count: number }[]>;
  /** Nodes by state as the API sees them (issue 22): online (reported lately), offline, never reported, switched off; draining apart. */
  nodeStates?: () => Promise<{
    online: number;
    offline: number;
    never: number;
    disabled: number;
    draining: number;
    full: number;
  }>;
  /** Each node's stealth core as it last reported (issue 21): node names are the operator's, a small fixed set. */
  stealthNodes?: () => Promise<
    { node: string; up: boolean; version: string | null; users: number; certNotAfterS: number | null }[]
  >;
}

export function createMetrics(sources: MetricsSources = {}) {
  const registry = new Registry();
  let defaults = false;

  const metrics = {
    registry,
    /** Every answer of the public app, by route pattern (never the raw URL), method and status. */
    httpRequests: new Counter({
      name: 'warren_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'warren_http_request_duration_seconds',
      help: 'Time from the request arriving to the answer sent, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
    /** Every database query (repositories, transactions), by SQL verb and outcome. */
    dbDuration: new Histogram({
      name: 'warren_db_query_duration_seconds',
      help: 'Database query time, by SQL verb (select, insert, update, delete, other) and outcome (ok, error)',
      labelNames: ['operation', 'outcome'] as const,
      buckets: DB_BUCKETS,
      registers: [registry],
    }),
    signups: new Counter({
      name: 'warren_signups_total',
      help: 'Accounts created, by brand',
      labelNames: ['brand'] as const,
      registers: [registry],
    }),
    verified: new Counter({
      name: 'warren_email_verifications_total',
      help: 'Email addresses verified, by brand',
      labelNames: ['brand'] as const,
      registers: [registry],
    }),
    /**
     * Payments by provider and outcome: `applied` when a payment extends a plan (providers and
     * support grants alike), `failed` when the provider refused it, `refunded` when money went back.
     */
    payments: new Counter({
      name: 'warren_payments_total',
      help: 'Payments by provider and outcome (applied: the plan was extended; failed: refused by the provider; refunded)',
      labelNames: ['provider', 'outcome'] as const,
      registers: [registry],
    }),
    /** Renewal charges tried, by provider and outcome (renewed, pending at the provider, failed). */
    renewals: new Counter({
      name: 'warren_renewals_total',
      help: 'Renewal charges tried, by provider and outcome (renewed, pending, failed)',
      labelNames: ['provider', 'outcome'] as const,
      registers: [registry],
    }),
    /**
     * Failed console sign-ins by reason. `not-staff` (no such account, or an account without a role,
     * whatever the password) is counted here only: a customer's try is no staff event and leaves no
     * row, address or hint of a right password in the staff audit (issue 20).
     */
    staffSignInFailures: new Counter({
      name: 'warren_staff_sign_in_failures_total',
      help: 'Failed operator-console sign-ins by reason (not-staff: unknown account or no role; password; code; two-factor-off; disabled)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    webhooksRejected: new Counter({
      name: 'warren_webhooks_rejected_total',
      help: 'Provider webhooks refused (bad signature or payload), by provider',
      labelNames: ['provider'] as const,
      registers: [registry],
    }),
    /** Mails the link guard stopped (mail/link-guard.ts): any at all is a bug that wrote a link to a foreign origin. */
    mailsRefused: new Counter({
      name: 'warren_mails_refused_total',
      help: "Mails not sent because they linked outside the brands' origins",
      registers: [registry],
    }),

    /**
     * A gauge read when Prometheus scrapes (through a repository, e.g. active subscriptions, job
     * queue depth). A failing read leaves the gauge without samples for that scrape instead of
     * failing the whole scrape.
     */
    scrapeGauge(name: string, help: string, labelNames: readonly string[], read: () => Promise<ScrapeSample[]>): Gauge {
      return new Gauge({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        async collect() {
          let samples: ScrapeSample[];
          try {
            samples = await read();
          } catch {
            this.reset();
            return;
          }
          this.reset();
          for (const s of samples) this.set(s.labels ?? {}, s.value);
        },
      });
    },

    /** Process metrics (CPU, memory, handles, GC) and event-loop lag: only in a process that serves them. */
    collectDefaults(): void {
      if (defaults) return;
      defaults = true;
      collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
    },
  };
  // Present at zero, so an alert on the rate works from the first scrape.
  for (const reason of STAFF_SIGN_IN_FAILURES) metrics.staffSignInFailures.inc({ reason }, 0);
  for (const operation of ['select', 'insert', 'update', 'delete', 'other'] as const)
    for (const outcome of ['ok', 'error']) metrics.dbDuration.zero({ operation, outcome });
  const build = buildInfo();
  new Gauge({
    name: 'warren_build_info',
    help: 'What is running: the API version and the commit it was built from (value 1)',
    labelNames: ['version', 'commit'] as const,
    registers: [registry],
  }).set({ version: build.version, commit: build.commit ?? 'unknown' }, 1);
  const { nodeStates } = sources;
  if (nodeStates) {
    metrics.scrapeGauge(
      'warren_nodes',
      'VPN nodes by state as the API sees them (online: reported lately; offline: reported once, silent since; never: no report yet; disabled: switched off)',
      ['state'],
      async () => {
        const n = await nodeStates();
        return (['online', 'offline', 'never', 'disabled'] as const).map((state) => ({
          labels: { state },
          value: n[state],
        }));
      },
    );
    metrics.scrapeGauge(
      'warren_nodes_draining',
      'Enabled VPN nodes being drained: given to no new customer (issue 22)',
      [],
      async () => [{ value: (await nodeStates()).draining }],
    );
    metrics.scrapeGauge(
      'warren_nodes_full',
      'Enabled VPN nodes at their WireGuard peer limit (VPN_NODE_HIGH_WATER_PERCENT of the cap their agent reports, or refusing peers): named in no new configuration (issue 22)',
      [],
      async () => [{ value: (await nodeStates()).full }],
    );
  }
  const { activeSubscriptions } = sources;
  if (activeSubscriptions)
    metrics.scrapeGauge(
      'warren_active_subscriptions',
      'Paid plans in force, by tariff (read from the database at scrape time)',
      ['tariff'],
      async () => (await activeSubscriptions()).map((r) => ({ labels: { tariff: r.tariff }, value: r.count })),
    );
  const { staffAuditHead } = sources;
  if (staffAuditHead)
    metrics.scrapeGauge(
      'warren_staff_audit_head_seq',
      'The staff audit hash chain: seq of its newest row (read at scrape time). It never goes down: a drop means rows were deleted (npx warren staff audit verify --head SEQ)',
      [],
      async () => [{ value: await staffAuditHead() }],
    );
  const { jobQueues } = sources;
  if (jobQueues)
    metrics.scrapeGauge(
      'warren_job_queue_jobs',
      'Jobs by queue and state (ready, deferred, blocked, active, failed), as the job engine last counted them',
      ['queue', 'state'],
      async () => (await jobQueues()).map((r) => ({ labels: { queue: r.queue, state: r.state }, value: r.count })),
    );
  const { stealthNodes } = sources;
  if (stealthNodes) {
    metrics.scrapeGauge(
      'warren_node_stealth_up',
      'Stealth core answering on the node (1) or not (0), as the node last reported',
      ['node'],
      async () => (await stealthNodes()).map((n) => ({ labels: { node: n.node }, value: n.up ? 1 : 0 })),
    );
    metrics.scrapeGauge(
      'warren_node_stealth_users',
      "Customers loaded in the node's stealth core, as the node last reported",
      ['node'],
      async () => (await stealthNodes()).map((n) => ({ labels: { node: n.node }, value: n.users })),
    );
    metrics.scrapeGauge(
      'warren_node_stealth_cert_expiry_seconds',
      "Unix time the node's stealth TLS certificate expires",
      ['node'],
      async () =>
        (await stealthNodes())
          .filter((n) => n.certNotAfterS !== null)
          .map((n) => ({ labels: { node: n.node }, value: n.certNotAfterS! })),
    );
    metrics.scrapeGauge(
      'warren_node_stealth_info',
      "The stealth core's version per node (value 1)",
      ['node', 'version'],
      async () =>
        (await stealthNodes()).map((n) => ({ labels: { node: n.node, version: n.version ?? 'unknown' }, value: 1 })),
    );
  }
  return metrics;
}
export type Metrics = ReturnType<typeof createMetrics>;

/** The payment outcomes and renewal outcomes counted (warren_payments_total, warren_renewals_total). */
const PAYMENT_OUTCOMES = ['applied', 'failed', 'refunded'] as const;
const RENEWAL_OUTCOMES = ['renewed', 'pending', 'failed'] as const;

/**
 * Every label set whose values are known at start, present at zero (issue 22): the brands (sign-ups,
 * verifications) and the payment providers of this configuration (payments, renewals, webhooks),
 * so a rate or an alert on them works from the first scrape, not from the first event.
 */
export function initialiseKnownLabels(
  m: Metrics,
  known: { brands: readonly string[]; providers: readonly string[]; renewalProviders: readonly string[] },
): void {
  for (const brand of known.brands) {
    m.signups.inc({ brand }, 0);
    m.verified.inc({ brand }, 0);
  }
  // A support grant is counted as a payment too (provider "grant").
  for (const provider of [...known.providers, 'grant'])
    for (const outcome of PAYMENT_OUTCOMES) m.payments.inc({ provider, outcome }, 0);
  for (const provider of known.providers) m.webhooksRejected.inc({ provider }, 0);
  for (const provider of known.renewalProviders)
    for (const outcome of RENEWAL_OUTCOMES) m.renewals.inc({ provider, outcome }, 0);
}

/** The SQL verb of a statement, for the query-time label: a fixed set, never the statement. */
export function sqlOperation(sql: string): 'select' | 'insert' | 'update' | 'delete' | 'other' {
  const m = /^\s*(?:with\b[\s\S]*?\)\s*)?(select|insert|update|delete)\b/i.exec(sql);
  return (m?.[1]?.toLowerCase() as 'select' | 'insert' | 'update' | 'delete' | undefined) ?? 'other';
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The method label: the usual ones, anything else as `other`. */
/** The route label every file of the built web app shares (one route each, plugins/spa.ts). */
export const STATIC_FILES_ROUTE = 'static files';

export const methodLabel = (method: string) => (METHODS.has(method) ? method : 'other');
