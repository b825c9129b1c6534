import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/**
 * What the security suites (xsrf, ownership, hostile) share: the app's routes as registered, the
 * OpenAPI operations, and database snapshots to prove that a refused request changed nothing.
 */

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface OpenApiOperation {
  method: string;
  /** Fastify's form: `/api/billing/webhooks/:provider`. */
  url: string;
  parameters: { in: string; name: string; required?: boolean; schema: Record<string, unknown> }[];
  bodySchema?: { properties?: Record<string, unknown>; required?: string[] };
}

/** The operations of the app's OpenAPI document (app.swagger()). */
export function openApiOperations(app: FastifyInstance): OpenApiOperation[] {
  type Op = {
    parameters?: OpenApiOperation['parameters'];
    requestBody?: { content?: Record<string, { schema: OpenApiOperation['bodySchema'] }> };
  };
  const doc = app.swagger() as { paths: Record<string, Record<string, Op>> };
  const out: OpenApiOperation[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      out.push({
        method: m.toUpperCase(),
        url: p.replace(/\{(\w+)\}/g, ':$1'),
        parameters: op.parameters ?? [],
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return out;
}

/**
 * The state-changing routes of the app, from its own route list (which includes the routes
 * left out of the OpenAPI document). Every OpenAPI operation must be among the app's routes.
 */
export function stateChangingRoutes(app: FastifyInstance): { method: string; url: string; hidden: boolean }[] {
  const registered = new Set(app.routeList.map((r) => `${r.method} ${r.url}`));
  for (const op of openApiOperations(app))
    expect(registered.has(`${op.method} ${op.url}`), `${op.method} ${op.url} from the OpenAPI document`).toBe(true);
  const seen = new Set<string>();
  return app.routeList.filter(
    (r) => !SAFE_METHODS.has(r.method) && !seen.has(`${r.method} ${r.url}`) && !!seen.add(`${r.method} ${r.url}`),
  );
}

/** A route's path with its parameters filled in (the suites probe routing, not the parameter's validation). */
export const fillParams = (url: string, value = '1') => url.replace(/:(\w+)/g, value);

/** Ways to spell a path that a naive prefix check misses and a router may or may not resolve. */
export function pathSpellings(url: string): string[] {
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  const segments = url.split('/'); // ['', 'api', 'users', 'register']
  const encodeFirst = (i: number) => segments.map((s, j) => (j === i && s ? hex(s[0]!) + s.slice(1) : s)).join('/');
  const out = [
    encodeFirst(1), // /%61pi/users/register
    segments.length > 2 ? encodeFirst(2) : undefined, // /api/%75sers/register
    segments.map((s) => [...s].map(hex).join('')).join('/'), // every letter encoded
    `/${url}`, // //api/users/register
    url.replace(/\/([^/]*)$/, '//$1'), // /api/users//register
    `${url}/`, // trailing slash
    url.toUpperCase(),
    url.replace(/^\/(\w)/, (_m, c: string) => `/${c.toUpperCase()}`), // /Api/users/register
    segments.slice(0, 2).join('/') + '%2F' + segments.slice(2).join('%2F'), // /api%2Fusers%2Fregister
    segments.length > 2 ? [...segments.slice(0, 2), '.', ...segments.slice(2)].join('/') : undefined, // /api/./users/register
    segments.length > 2 ? [...segments.slice(0, 2), 'x', '..', ...segments.slice(2)].join('/') : undefined, // /api/x/../users/register
    `${url};x=1`,
    `${url}%00`,
  ];
  return [...new Set(out.filter((u): u is string => !!u && u !== url))];
}

/**
 * Rows a refused request writes by design, left out of the comparison: a failed sign-in on a staff
 * account is audited (issue 15), and moves the audit chain's head (issue 20; any other audit row still shows in staff_audit);
 * a refused try counts against its budget (rate_limits, the budgets' table on PostgreSQL without Redis).
 */
const WRITTEN_WHEN_REFUSED: Record<string, string> = {
  staff_audit: "action = 'sign-in-failed'",
  staff_audit_head: 'true',
  rate_limits: 'true',
};

/**
 * Every table's rows (as text, in a stable order), so a comparison shows any change at all.
 * `skip` lists tables whose contents change on any signed-in read (token last use) and are
 * compared by count only.
 */
export async function snapshot(
  app: FastifyInstance,
  countOnly: string[] = ['auth_tokens'],
): Promise<Record<string, string | number>> {
  await app.settle();
  const tables = (await tableNames(app)).filter((name) => /^[a-z_][a-z0-9_]*$/.test(name));
  // One query for all tables: the suites take a snapshot per route.
  const parts = tables.map((name) =>
    countOnly.includes(name)
      ? `select '${name}' as name, count(*)::int::text as v from ${name}`
      : `select '${name}' as name, count(*)::int || ':' || md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as v from ${name} t${WRITTEN_WHEN_REFUSED[name] ? ` where not (${WRITTEN_WHEN_REFUSED[name]})` : ''}`,
  );
  const rows = await app.db.query<{ name: string; v: string }>(parts.join(' union all '));
  return Object.fromEntries(rows.map((r) => [r.name, countOnly.includes(r.name) ? Number(r.v) : r.v]));
}

let cachedTables: Promise<string[]> | undefined;
let cachedFor: FastifyInstance | undefined;
function tableNames(app: FastifyInstance): Promise<string[]> {
  if (cachedFor !== app || !cachedTables) {
    cachedFor = app;
    cachedTables = app.db
      .query<{ name: string }>(
        `select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
      )
      .then((rows) => rows.map((r) => r.name));
  }
  return cachedTables;
}

/** The rows that belong to one user, in every table with a user_id column, and the user's own row. */
export async function rowsOf(app: FastifyInstance, userId: number): Promise<Record<string, string>> {
  await app.settle();
  const tables = await app.db.query<{ name: string }>(
    `select table_name as name from information_schema.columns where table_schema = current_schema() and column_name = 'user_id' order by table_name`,
  );
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) continue;
    // Token last-use times move on every signed-in call of the owner; the rows' existence is what matters.
    const cols = name === 'auth_tokens' ? 'id' : 't::text';
    const [row] = await app.db.query<{ h: string | null }>(
      `select string_agg(${cols}::text, '|' order by ${cols}::text) as h from ${name} t where user_id = $1`,
      [userId],
    );
    out[name] = row!.h ?? '';
  }
  const [user] = await app.db.query<{ h: string }>(`select t::text as h from users t where id = $1`, [userId]);
  out.users = user?.h ?? '';
  return out;
}
