import net from 'node:net';
import { brandOrigins } from '../brands/origins.js';
import type { BrandRegistry } from '../brands/registry.js';
import type { Config } from '../config.js';
import type { BuildInfo } from './build-info.js';

/**
 * What the server says about itself at start (README: Running in production): one line naming
 * the build, the database, the mail transport, the payment providers and the brands' origins,
 * with no secret in it (no passwords, keys, tokens or user names of URLs); and, in production,
 * the settings with which a real deployment would be broken.
 *
 * Refused (the server does not start): what would harm customers without anyone noticing: mail
 * kept in the local outbox (verification, reset links and receipts never arrive), a sender on a
 * reserved domain (receiving servers drop it), a brand whose links point at localhost or another
 * reserved name (the stock brand file: receipts linked to https://localhost/subscription), test-mode
 * payment keys (anyone typing the provider's test card gets a plan).
 * Warned (logged at warn, once per start): what is visible or may be meant: no payment provider
 * (checkouts fail in the customer's face; plans can still be granted), links over plain http, a
 * placeholder help-centre link, no trusted proxy in front (every customer would share its address).
 */
export interface StartupReport {
  summary: StartupSummary;
  refusals: string[];
  warnings: string[];
}

export interface StartupSummary {
  version: string;
  commit: string;
  node: string;
  env: Config['env'];
  listen: string;
  database: string;
  mail: string;
  payments: string[];
  brands: string[];
  redis: string;
  jobs: boolean;
  trustProxy: boolean;
}

/** Reserved names (RFC 2606/6761) and loopback: nobody outside this machine reaches a link there. */
export function isPlaceholderHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (net.isIP(h)) return h === '::1' || h.startsWith('127.') || h === '0.0.0.0' || h === '::';
  return /(^|\.)(example(\.(com|net|org))?|invalid|test|localhost|local)$/.test(h);
}

/** A URL reduced to scheme, host and port: never its user name, password, path or query. */
function endpoint(url: string, defaultPort: number): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname || 'localhost'}:${u.port || defaultPort}`;
  } catch {
    return '(unparsable URL)';
  }
}

function describeDatabase(db: Config['database']): string {
  if (db.kind === 'pglite') return `embedded PGlite in ${db.dataDir}`;
  try {
    const u = new URL(db.url);
    // A socket directory given as ?host=… is where the server is; sslmode says how it is reached. Nothing else (passwords may sit in the query).
    const socketHost = u.searchParams.get('host');
    const sslmode = u.searchParams.get('sslmode');
    const where = socketHost ? `${socketHost}` : `${u.hostname || 'localhost'}:${u.port || 5432}`;
    return `PostgreSQL ${where}${u.pathname || '/'}${db.schema ? ` schema ${db.schema}` : ''}${sslmode ? ` sslmode=${sslmode}` : ''}`;
  } catch {
    return 'PostgreSQL (unparsable URL)';
  }
}

const senderDomain = (from: string) => /@([^>\s@]+)>?\s*$/.exec(from)?.[1];

function describePayments(billing: Config['billing']): { names: string[]; testMode: string[] } {
  const names: string[] = [];
  const testMode: string[] = [];
  if (billing.sandbox) names.push('sandbox');
  if (billing.stripe) {
    const test =
      /^(sk|rk)_test_/.test(billing.stripe.secretKey) || billing.stripe.publishableKey.startsWith('pk_test_');
    names.push(`stripe (${test ? 'test mode' : 'live'})`);
    if (test)
      testMode.push(
        "Stripe has test-mode keys (sk_test_/pk_test_): anyone paying with Stripe's test card gets a plan; set the live keys",
      );
  }
  if (billing.payssion) {
    const sandbox = /sandbox/i.test(new URL(billing.payssion.apiUrl).hostname);
    names.push(`payssion${sandbox ? ' (sandbox)' : ''}`);
    if (sandbox)
      testMode.push(
        `PAYSSION_API_URL is Payssion's sandbox (${new URL(billing.payssion.apiUrl).hostname}): it takes no money; set https://www.payssion.com`,
      );
  }
  if (billing.cardlink) names.push('cardlink');
  return { names, testMode };
}

export function startupReport(config: Config, brands: BrandRegistry, build: BuildInfo): StartupReport {
  const origins = brandOrigins(brands, {
    publicUrl: config.publicUrl,
    isProduction: config.isProduction,
    port: config.port,
  });
  const payments = describePayments(config.billing);
  const summary: StartupSummary = {
    version: build.version,
    commit: build.commit ?? 'unknown',
    node: process.version,
    env: config.env,
    listen: config.socket ? `unix:${config.socket}` : `http://${config.host}:${config.port}`,
    database: describeDatabase(config.database),
    mail: config.mail.url
      ? `${endpoint(config.mail.url, config.mail.url.startsWith('smtps:') ? 465 : 587)} from ${config.mail.from}`
      : `outbox in ${config.mail.outboxDir} (not sent)`,
    payments: payments.names,
    brands: brands.all().map((b) => `${b.id} ${origins.canonical(b)}`),
    // Without Redis the rate limits are shared through PostgreSQL; only the embedded database counts them in memory (lib/rate-limit.ts).
    redis: config.redisUrl
      ? endpoint(config.redisUrl, 6379)
      : config.database.kind === 'postgres'
        ? 'off (rate limits in the database)'
        : 'off (rate limits in this instance)',
    jobs: config.jobs,
    trustProxy: config.trustProxy !== false,
  };
  const refusals: string[] = [];
  const warnings: string[] = [];
  if (!config.isProduction) return { summary, refusals, warnings };

  if (!config.mail.url)
    refusals.push(
      `MAIL_URL is unset: mail would go to the local outbox (${config.mail.outboxDir}) and no customer would get a verification link, a password reset or a receipt; set MAIL_URL=smtps://…`,
    );
  const domain = senderDomain(config.mail.from);
  if (!domain || isPlaceholderHost(domain))
    refusals.push(
      `MAIL_FROM (${config.mail.from}) is not an address on a real domain: receiving servers drop such mail; set MAIL_FROM to an address of your domain`,
    );
  for (const b of brands.all()) {
    const origin = new URL(origins.canonical(b));
    if (isPlaceholderHost(origin.hostname))
      refusals.push(
        `brand ${b.id}: its links (mails, receipts, payment return URLs) would point at ${origin.origin}, which no customer can reach (the stock brand file ${config.brandsFile}?); give the brand your hosts and "origin" in BRANDS_FILE, or set PUBLIC_URL`,
      );
    else if (origin.protocol !== 'https:')
      warnings.push(
        `brand ${b.id}: links point at ${origin.origin} over plain http; customers' browsers get no Secure cookies there`,
      );
    if (isPlaceholderHost(new URL(b.helpCenterUrl).hostname))
      warnings.push(
        `brand ${b.id}: helpCenterUrl ${b.helpCenterUrl} is a placeholder ("Contact us" and the security mails link there)`,
      );
  }
  refusals.push(...payments.testMode);
  if (!payments.names.length)
    warnings.push(
      'no payment provider is configured (Stripe, Payssion or Cardlink): every checkout fails; plans can only be granted by staff',
    );
  if (config.trustProxy === false)
    warnings.push(
      "TRUST_PROXY is off: behind the reverse proxy that production needs for HTTPS, every customer has the proxy's address and shares its sign-in and sign-up budgets; set TRUST_PROXY=true",
    );
  return { summary, refusals, warnings };
}
