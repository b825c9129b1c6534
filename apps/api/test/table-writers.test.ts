// "One writer per table" (ARCHITECTURE.md): every table the migrations create is written (INSERT,
// UPDATE, DELETE) by the one repository file the map below names, and other areas act through that
// module's service. A second writer file, or a table missing from the map, fails here; the database
// triggers that write tables are listed in ARCHITECTURE.md ("Who writes what").
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const api = path.resolve(import.meta.dirname, '..');
const src = path.join(api, 'src');

/** Table → the files (under apps/api/src) that write it. Several files only inside one module, with the reason. */
const WRITERS: Record<string, string[]> = {
  affiliate_sessions: ['modules/affiliate/repository.ts'],
  auth_tokens: ['modules/users/repository.ts'],
  billing_addresses: ['modules/billing/repository.ts'],
  billing_notices: ['modules/billing/renewals-repository.ts'],
  conversion_postbacks: ['modules/billing/repository.ts'],
  email_tokens: ['modules/users/repository.ts'],
  known_browsers: ['modules/users/repository.ts'],
  passkeys: ['modules/passkeys/repository.ts'],
  webauthn_challenges: ['modules/passkeys/repository.ts'],
  mail_log: ['modules/staff/repository.ts'],
  openvpn_node_certs: ['modules/openvpn-socks5/repository.ts'],
  openvpn_pki: ['modules/openvpn-socks5/repository.ts'],
  payment_mandates: ['modules/billing/repository.ts'],
  payment_method_detaches: ['modules/billing/renewals-repository.ts'],
  // Billing's renewal charges are created and failed by the renewals' own repository (one module).
  payments: ['modules/billing/renewals-repository.ts', 'modules/billing/repository.ts'],
  postback_attempts: ['modules/billing/repository.ts'],
  prices: ['modules/billing/repository.ts'],
  promo_codes: ['modules/billing/repository.ts'],
  provider_checkouts: ['modules/billing/repository.ts'],
  provider_events: ['modules/billing/repository.ts'],
  receipt_counters: ['modules/billing/receipts-repository.ts'],
  receipts: ['modules/billing/receipts-repository.ts'],
  recovery_codes: ['modules/users/repository.ts'],
  refund_requests: ['modules/billing/refund-request-repository.ts'],
  reward_entries: ['modules/rewards/repository.ts'],
  sandbox_cards: ['modules/billing/repository.ts'],
  sandbox_payments: ['modules/billing/repository.ts'],
  service_credentials: ['modules/openvpn-socks5/repository.ts'],
  staff_audit: ['modules/staff/repository.ts'],
  staff_members: ['modules/staff/repository.ts'],
  staff_sessions: ['modules/staff/repository.ts'],
  stealth_credentials: ['modules/stealth/repository.ts'],
  stealth_key: ['modules/stealth/repository.ts'],
  stealth_node_status: ['modules/stealth/repository.ts'],
  stealth_traffic: ['modules/stealth/repository.ts'],
  subscription_renewals: ['modules/billing/renewals-repository.ts'],
  tariffs: ['modules/billing/repository.ts'],
  user_features: ['modules/ad-blocker/repository.ts'],
  users: ['modules/users/repository.ts'],
  vpn_changes: ['modules/nodes/repository.ts'],
  vpn_locations: ['modules/locations/repository.ts'],
  vpn_meta: ['modules/nodes/repository.ts'],
  vpn_nodes: ['modules/nodes/repository.ts'],
  wg_address_high: ['modules/wireguard/repository.ts'],
  wg_devices: ['modules/wireguard/repository.ts'],
  wg_free_addresses: ['modules/wireguard/repository.ts'],
  wg_peer_stats: ['modules/nodes/repository.ts'],
};

/** Tables no SQL of apps/api/src writes, and who writes them instead. */
const OTHER_WRITERS: Record<string, string> = {
  affiliate_counts:
    'triggers affiliate_on_user, affiliate_on_payment, affiliate_on_click (migration 0029_affiliate_totals)',
  affiliate_paid: 'trigger affiliate_on_payment (migration 0029_affiliate_totals)',
  staff_audit_head: 'trigger staff_audit_chain (migration 0014)',
  features: 'the migration that made it (0005): a catalogue, read only',
  rate_limits: "rate-limiter-flexible's own SQL (lib/rate-limit.ts, tableName 'rate_limits')",
};

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(p);
    return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [p] : [];
  });
}

/** The tables the migrations create. */
function tables(): Set<string> {
  const dir = path.join(src, 'db/migrations');
  const out = new Set<string>();
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.sql')))
    for (const m of fs
      .readFileSync(path.join(dir, f), 'utf8')
      .matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?([a-z_]+)/gi))
      out.add(m[1]!.toLowerCase());
  return out;
}

/** The tables a text writes: INSERT INTO t, UPDATE t [[AS] alias] SET, DELETE FROM t (an upsert's "do update set" is its insert's). */
export function writtenTables(text: string, known: Set<string>): Set<string> {
  const out = new Set<string>();
  const patterns = [
    /\binsert\s+into\s+([a-z_]+)/gi,
    /\bupdate\s+([a-z_]+)(?:\s+(?:as\s+)?[a-z_]+)?\s+set\b/gi,
    /\bdelete\s+from\s+([a-z_]+)/gi,
    /\btruncate\s+(?:table\s+)?([a-z_]+)/gi,
  ];
  for (const re of patterns)
    for (const m of text.matchAll(re)) {
      const t = m[1]!.toLowerCase();
      if (known.has(t)) out.add(t);
    }
  return out;
}

/** Table → the files writing it, as the code has it now. */
function writers(known: Set<string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const file of filesUnder(src)) {
    const rel = path.relative(src, file).split(path.sep).join('/');
    for (const t of writtenTables(fs.readFileSync(file, 'utf8'), known)) (out[t] ??= []).push(rel);
  }
  for (const t of Object.keys(out)) out[t]!.sort();
  return out;
}

describe('one writer per table', () => {
  it('finds the writes the scan is built for (so a scan that finds nothing cannot pass)', () => {
    const known = new Set(['users', 'auth_tokens', 'vpn_nodes', 'staff_sessions']);
    expect(
      [
        ...writtenTables(
          'update users u set x = 1; insert into auth_tokens (a) values (1) on conflict (a) do update set a = 2; delete from\n staff_sessions; update vpn_nodes set enabled = $2',
          known,
        ),
      ].sort(),
    ).toEqual(['auth_tokens', 'staff_sessions', 'users', 'vpn_nodes']);
    // Reads and prose are no writes.
    expect([...writtenTables('select * from users; -- we update the users later', known)]).toEqual([]);
  });

  it('every table the migrations create is written only by the files the map names', () => {
    const known = tables();
    const found = writers(known);
    expect(Object.keys(found).length).toBeGreaterThan(30);
    for (const [table, files] of Object.entries(found))
      expect(files, `${table}: its writers (one repository; others go through its module's service)`).toEqual(
        [...(WRITERS[table] ?? [])].sort(),
      );
    // Every table is in exactly one of the maps, and the map names no table that is gone or no longer written.
    for (const table of known)
      expect(!!WRITERS[table] !== !!OTHER_WRITERS[table], `${table}: in WRITERS or OTHER_WRITERS, not both`).toBe(true);
    for (const table of Object.keys(WRITERS)) expect(found[table], `${table} in the map but not written`).toBeDefined();
  });
});
