import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBrandRegistry } from '../src/brands/registry.js';
import { encryptText } from '../src/lib/secrets.js';
import { FORM_BODY_ROUTES } from '../src/plugins/xsrf.js';
import { TestClient, createTestApp, registerUser, type TestApp } from './helpers.js';
import {
  BOUNDARY_JSON,
  BOUNDARY_TEXT,
  numberSlots,
  outOfRange,
  toJsonSchema,
  unboundedNumber,
  withValueAt,
} from './number-boundaries.js';
import { openApiOperations, snapshot } from './route-suites.js';

/**
 * Hostile input against every route of the app. The routes are the app's own route list
 * (app.routeList, which also holds the routes left out of the docs) and their request schemas
 * come from the OpenAPI document (app.swagger()); every operation of the document must be
 * covered, so a new endpoint is covered without touching this file. For each route: generated
 * invalid bodies / queries / tokens (fast-check) and a fixed corpus (types, sizes, unicode, NUL
 * bytes, deep JSON, prototype keys, content types, auth headers). Whatever comes in, the answer
 * is a 4xx with the `{ message, errors? }` shape, nothing internal leaks, and no row of any
 * table changes. Every number field (body, query, path; hidden routes' too) gets boundary
 * numbers as raw JSON text (2^31, 2^53, -0, 1e309, "1e3"; number-boundaries.ts) and must be
 * bounded by its column.
 *
 * CI runs a fixed sample: HOSTILE_RUNS (default 20) generated cases per route from a fixed seed.
 * `npm run test:fuzz` runs 300 per route from a random seed (printed on failure; HOSTILE_SEED
 * replays it).
 */

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}
interface QueryParam {
  name: string;
  required: boolean;
  schema: JsonSchema;
}
/**
 * body: the route validates or decodes its body, so a bad one is refused.
 * query: the route validates its query string.
 * auth: no input of its own, but needs a signed-in user: hostile tokens are refused.
 * open: public and without input (health, brand): hostile noise must not hurt it.
 */
type Mode = 'body' | 'query' | 'auth' | 'open';
interface Route {
  method: string;
  /** The route's path with its parameters filled in with plausible values. */
  url: string;
  /** The path as registered, e.g. `/api/billing/webhooks/:provider`. */
  path?: string;
  params?: string[];
  body?: JsonSchema;
  query?: QueryParam[];
  mode: Mode;
  /** Refuses a state-changing call without the XSRF header (machine-to-machine routes do not). */
  xsrfProtected?: boolean;
  /** The route's own request schemas (zod), hidden routes' included. */
  schemas?: { body?: unknown; querystring?: unknown; params?: unknown };
}

/** Values tried for path parameters until the route accepts one as well-formed. */
const PARAM_CANDIDATES = ['1', 'sandbox', '00000000-0000-4000-8000-000000000000', `sbx_${'0'.repeat(32)}`, 'en', 'abc'];
/** Routes with their own body limit: the node report (many peers) and the restricted envelope (a sealed body at BODY_LIMIT_BYTES, base64 and all; plugins/restricted-envelope.ts). */
const OWN_BODY_LIMIT = new Set(['/api/nodes/report', '/api/restrictedCall']);

let t: TestApp;
let app: FastifyInstance;
let routes: Route[];
let token: string;
let xsrf: string;
/** The cookies a browser holds: the XSRF token and the httpOnly key it is bound to. */
let jar: Record<string, string>;
let restrictedKeys: string[];
const NUM_RUNS = Number(process.env.HOSTILE_RUNS ?? 20);
const SEED = process.env.HOSTILE_SEED
  ? Number(process.env.HOSTILE_SEED)
  : process.env.HOSTILE_RUNS
    ? undefined
    : 20261123;

function headersFor(opts: { auth?: string | null; xsrf?: boolean; host?: string; contentType?: string } = {}) {
  const h: Record<string, string> = { host: opts.host ?? 'localhost' };
  if (opts.xsrf !== false) h['x-xsrf-token'] = xsrf;
  const bearer = opts.auth === undefined ? token : opts.auth;
  if (bearer !== null) h.authorization = `Bearer ${bearer}`;
  if (opts.contentType) h['content-type'] = opts.contentType;
  return h;
}

/** Set when a state-changing call was accepted (2xx): well-typed odd values are legitimate data. */
let acceptedWrite = false;

async function send(
  route: Route,
  opts: {
    payload?: string | Buffer;
    query?: string;
    auth?: string | null;
    xsrf?: boolean;
    host?: string;
    contentType?: string;
    rawHeaders?: Record<string, string>;
  },
) {
  const hasBody = opts.payload !== undefined;
  const res = await app.inject({
    method: route.method as InjectOptions['method'],
    url: route.url + (opts.query ? `?${opts.query}` : ''),
    headers: {
      ...headersFor({ ...opts, contentType: opts.contentType ?? (hasBody ? 'application/json' : undefined) }),
      ...opts.rawHeaders,
    },
    cookies: opts.xsrf === false ? {} : jar,
    ...(hasBody ? { payload: opts.payload } : {}),
  });
  if (route.method !== 'GET' && res.statusCode < 300) acceptedWrite = true;
  return res;
}

const LEAKS = [
  /\n\s+at\s/,
  /\bat .+:\d+:\d+/,
  /node_modules/,
  /\/work\//,
  /apps\/api/,
  /\.ts:\d+/,
  /file:\/\//,
  /"stack"/,
  /\bSELECT\b|\bINSERT\b|\bUPDATE\b/i,
  /pglite|postgres|drizzle|\bpg\b/i,
];

/** The error contract: `{ message, errors? }`, field messages as string arrays, nothing internal. */
function assertErrorBody(res: LightMyRequestResponse, what: string) {
  // Pages for people outside /api (the sandbox's hosted checkout) answer their errors as HTML.
  if (!String(res.raw.req.url).startsWith('/api/') && String(res.headers['content-type']).startsWith('text/html')) {
    for (const re of LEAKS.slice(0, 8))
      expect(re.test(res.body), `${what}: leaks ${re} in ${res.body.slice(0, 300)}`).toBe(false);
    return;
  }
  let body: Record<string, unknown>;
  try {
    body = res.json();
  } catch {
    throw new Error(`${what}: ${res.statusCode} body is not JSON: ${res.body.slice(0, 200)}`);
  }
  expect(typeof body, what).toBe('object');
  expect(typeof body.message, `${what}: message`).toBe('string');
  expect(
    Object.keys(body).filter((k) => k !== 'message' && k !== 'errors'),
    `${what}: extra keys`,
  ).toEqual([]);
  if (body.errors !== undefined) {
    expect(typeof body.errors, what).toBe('object');
    for (const [field, messages] of Object.entries(body.errors as Record<string, unknown>)) {
      expect(Array.isArray(messages), `${what}: errors.${field}`).toBe(true);
      for (const msg of messages as unknown[]) expect(typeof msg, `${what}: errors.${field}`).toBe('string');
    }
  }
  for (const re of LEAKS) expect(re.test(res.body), `${what}: leaks ${re} in ${res.body.slice(0, 300)}`).toBe(false);
}

function assertRefused(res: LightMyRequestResponse, what: string, status?: number) {
  if (status !== undefined) expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBe(status);
  expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
  assertErrorBody(res, what);
}

/** For open routes: anything but a 5xx, and an error body when it is an error. */
function assertHarmless(res: LightMyRequestResponse, what: string) {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
  if (res.statusCode >= 400) assertErrorBody(res, what);
  for (const re of LEAKS.slice(0, 8)) expect(re.test(res.body), `${what}: leaks ${re}`).toBe(false);
}

/** Every table's rows (auth_tokens by count: the valid token's last use moves), once deferred work has landed. */
const counts = () => snapshot(app);

// --- generators -----------------------------------------------------------------------------

const ODD_STRINGS = [
  "' or 1=1--",
  "x' or '1'='1@example.com",
  "admin@example.com'; drop table users;--",
  '\u0000',
  'a\u0000b@example.com',
  '\ud800',
  '\udfff\ud800',
  '\u202egnp.exe',
  '𝕏😀👩‍👩‍👧‍👦',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '\ufeff\u200b',
  '<script>alert(1)</script>',
  '{{7*7}}${7*7}',
  '../../../../etc/passwd',
  '%00%0d%0a',
  '\r\nSet-Cookie: x=1',
  'null',
  'undefined',
  '[object Object]',
  '__proto__',
  ' '.repeat(300),
];
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...ODD_STRINGS),
  fc.integer({ min: 257, max: 5000 }).map((n) => 'x'.repeat(n)),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.anything({ maxDepth: 1 }), { maxKeys: 3 }),
);

const typesOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/**
 * Could `value` pass `schema`? Deliberately generous (coercion, formats and lengths are
 * ignored): generated values for which this says yes are dropped, so what is sent is invalid.
 */
function maybeValid(schema: JsonSchema, value: unknown): boolean {
  if (schema.anyOf || schema.oneOf) return (schema.anyOf ?? schema.oneOf)!.some((s) => maybeValid(s, value));
  if (schema.enum) return schema.enum.includes(value);
  const types = typesOf(schema);
  if (!types.length) return true;
  return types.some((type) => {
    switch (type) {
      case 'string':
        return typeof value === 'string';
      case 'integer':
      case 'number':
        // z.coerce.number() turns '12', true, [3] and null into numbers
        return (
          value === null ||
          typeof value === 'boolean' ||
          (typeof value !== 'object' && Number.isFinite(Number(value))) ||
          (Array.isArray(value) && value.length <= 1)
        );
      case 'boolean':
        return typeof value === 'boolean';
      case 'null':
        return value === null;
      case 'array':
        return Array.isArray(value);
      case 'object': {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
        const v = value as Record<string, unknown>;
        if ((schema.required ?? []).some((k) => !(k in v))) return false;
        return Object.entries(schema.properties ?? {}).every(
          ([k, s]) => !(k in v) || v[k] === undefined || maybeValid(s, v[k]),
        );
      }
      default:
        return true;
    }
  });
}

const WRONG_TYPE_CANDIDATES: unknown[] = [
  0,
  7,
  -1,
  1.5,
  true,
  false,
  null,
  {},
  [],
  ['a', 'b'],
  { a: 1 },
  'abc',
  '',
  [[]],
];

function plausible(key: string, s: JsonSchema): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf || s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf)!.map((x) => plausible(key, x)));
  const type = typesOf(s)[0];
  if (type === 'integer' || type === 'number') return fc.integer({ min: 1, max: 100_000 });
  if (type === 'boolean') return fc.boolean();
  if (type === 'string') {
    if (/email/i.test(key)) return fc.emailAddress();
    return fc.string({ minLength: Math.max(s.minLength ?? 0, 0), maxLength: Math.min(s.maxLength ?? 64, 64) });
  }
  return anyValue;
}

/** Ways to break a body that is otherwise plausible; each one alone makes it invalid. */
function breakers(schema: JsonSchema): fc.Arbitrary<(o: Record<string, unknown>) => void>[] {
  const out: fc.Arbitrary<(o: Record<string, unknown>) => void>[] = [];
  for (const key of schema.required ?? []) out.push(fc.constant((o) => void delete o[key]));
  for (const [key, s] of Object.entries(schema.properties ?? {})) {
    const wrong = WRONG_TYPE_CANDIDATES.filter((v) => !maybeValid(s, v));
    if (wrong.length) out.push(fc.constantFrom(...wrong).map((v) => (o) => void (o[key] = v)));
    if (s.maxLength !== undefined) {
      const max = s.maxLength;
      out.push(
        fc.tuple(fc.integer({ min: 1, max: 2000 }), fc.constantFrom('x', 'é', '😀')).map(
          ([n, ch]) =>
            (o) =>
              void (o[key] = ch.repeat(max + n)),
        ),
      );
    }
    if (s.minLength !== undefined && s.minLength > 0) out.push(fc.constant((o) => void (o[key] = '')));
    if ((typesOf(s).includes('integer') || typesOf(s).includes('number')) && s.maximum !== undefined) {
      const max = s.maximum;
      out.push(fc.integer({ min: 1, max: 1_000_000 }).map((n) => (o) => void (o[key] = max + n)));
    }
  }
  if (!out.length) out.push(fc.constant((o) => void (o.__no_schema_breaker__ = true)));
  return out;
}

function invalidBody(schema: JsonSchema): fc.Arbitrary<unknown> {
  const props = Object.entries(schema.properties ?? {});
  const base = fc.record(Object.fromEntries(props.map(([k, s]) => [k, fc.oneof(plausible(k, s), anyValue)])), {
    requiredKeys: [],
  });
  const extras = fc.dictionary(
    fc
      .string({ maxLength: 12 })
      .filter((k) => !(k in (schema.properties ?? {})) && k !== '__proto__' && k !== 'constructor'),
    anyValue,
    { maxKeys: 4 },
  );
  const structured = fc
    .tuple(base, extras, fc.oneof(...breakers(schema)))
    .map(([b, e, breakIt]) => {
      const o: Record<string, unknown> = { ...e, ...(b as Record<string, unknown>) };
      breakIt(o);
      return o;
    })
    .filter((o) => !maybeValid(schema, o) || hasHardViolation(schema, o));
  const anything = fc.anything({ withNullPrototype: false }).filter((v) => !maybeValid(schema, v));
  return fc.oneof({ arbitrary: structured, weight: 3 }, { arbitrary: anything, weight: 2 });
}

/** Length and range violations that maybeValid ignores on purpose. */
function hasHardViolation(schema: JsonSchema, o: Record<string, unknown>): boolean {
  return Object.entries(schema.properties ?? {}).some(([k, s]) => {
    const v = o[k];
    if (typeof v === 'string')
      return (s.maxLength !== undefined && v.length > s.maxLength) || (!!s.minLength && v.trim().length < s.minLength);
    if (typeof v === 'number' && s.maximum !== undefined) return v > s.maximum;
    return false;
  });
}

/** A query string that breaks one parameter (missing, too long, repeated) among hostile others. */
function invalidQuery(params: QueryParam[]): fc.Arbitrary<string> {
  const qsValue = fc.oneof(
    hostileString.filter((s) => s.length <= 200 && !s.includes('\u0000')),
    fc.constantFrom('', '%', '%zz', '[]', 'a&b=c'),
  );
  const breakersQ: fc.Arbitrary<(q: [string, string][]) => void>[] = [];
  for (const p of params) {
    if (p.required) breakersQ.push(fc.constant((q) => void q.splice(0, q.length, ...q.filter(([k]) => k !== p.name))));
    if (p.schema.maxLength !== undefined) {
      const max = p.schema.maxLength;
      breakersQ.push(
        fc.integer({ min: 1, max: 5000 }).map((n) => (q) => {
          const rest = q.filter(([k]) => k !== p.name);
          q.splice(0, q.length, ...rest, [p.name, 'q'.repeat(max + n)]);
        }),
      );
    }
    if (p.schema.minLength)
      breakersQ.push(
        fc.constantFrom('', '   ').map((v) => (q) => {
          const rest = q.filter(([k]) => k !== p.name);
          q.splice(0, q.length, ...rest, [p.name, v]);
        }),
      );
    breakersQ.push(
      fc.tuple(qsValue, qsValue).map(([a, b]) => (q) => {
        const rest = q.filter(([k]) => k !== p.name);
        q.splice(0, q.length, ...rest, [p.name, a || 'a'], [p.name, b || 'b']);
      }),
    );
  }
  const base = fc.array(
    fc.tuple(fc.oneof(fc.constantFrom(...params.map((p) => p.name)), fc.string({ maxLength: 8 })), qsValue),
    { maxLength: 4 },
  );
  return fc.tuple(base, fc.oneof(...breakersQ)).map(([pairs, breakIt]) => {
    // unique names in the base so that only the breaker repeats a parameter
    const seen = new Set<string>();
    const q = pairs.filter(([k]) => k !== '' && !seen.has(k) && seen.add(k)) as [string, string][];
    breakIt(q);
    return new URLSearchParams(q).toString();
  });
}

const bogusToken = fc.oneof(
  fc.stringMatching(/^[\x21-\x7e]{0,300}$/),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('base64url')),
  fc.constantFrom("' or 1=1--", 'null', 'undefined', 'Bearer', 'x'.repeat(199), 'x'.repeat(20), '%00'),
);

// --- setup ----------------------------------------------------------------------------------

beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
  await app.ready();
  const client = new TestClient(app);
  await client.primeXsrf();
  await registerUser(client);
  token = client.token!;
  xsrf = client.xsrf!;
  jar = { ...client.cookies };
  restrictedKeys = loadBrandRegistry(t.config.brandsFile)
    .all()
    .flatMap((b) => (b.restrictedKey ? [b.restrictedKey] : []));

  const operations = new Map(openApiOperations(app).map((op) => [`${op.method} ${op.url}`, op]));
  const isStaticFile = (url: string) => {
    const file = path.join(t.config.webDistDir, url);
    return file.startsWith(t.config.webDistDir) && fs.existsSync(file) && fs.statSync(file).isFile();
  };
  const seen = new Set<string>();
  const table = app.routeList.filter(
    (r) =>
      r.method !== 'HEAD' &&
      r.method !== 'OPTIONS' &&
      r.url !== '/' &&
      !r.url.startsWith('/api/docs') &&
      !r.url.includes('*') &&
      !isStaticFile(r.url) &&
      !seen.has(`${r.method} ${r.url}`) &&
      !!seen.add(`${r.method} ${r.url}`),
  );
  // Every operation of the OpenAPI document is among them.
  for (const key of operations.keys()) expect(seen, `${key} from the OpenAPI document`).toContain(key);
  routes = [];
  for (const r of table) {
    const op = operations.get(`${r.method} ${r.url}`);
    const body = op?.bodySchema as JsonSchema | undefined;
    const queryParams = (op?.parameters ?? [])
      .filter((p) => p.in === 'query')
      .map((p) => ({ name: p.name, required: !!p.required, schema: p.schema as JsonSchema }));
    const pathParams = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const probeOf = (url: string, opts: Parameters<typeof send>[1] = {}) =>
      send(
        { method: r.method, url, mode: 'open' },
        { auth: null, ...(r.method !== 'GET' ? { payload: '{}' } : {}), ...opts },
      );
    // Fill path parameters with the first candidate the route does not reject as malformed.
    let url = r.url;
    for (const name of pathParams) {
      const template = url;
      for (const candidate of PARAM_CANDIDATES) {
        url = template.replace(`:${name}`, candidate);
        const res = await probeOf(url);
        if (!(res.statusCode === 422 && name in (res.json().errors ?? {}))) break;
      }
    }
    // Probe: valid XSRF, no bearer, no body. A 401 means the route needs a user; a 4xx on a
    // body-carrying method means the route checks a body that it does not describe (encrypted, signed).
    const probe = await probeOf(url);
    let mode: Mode;
    if (body) mode = 'body';
    else if (queryParams.length) mode = 'query';
    else if (probe.statusCode === 401) mode = 'auth';
    else if (r.method !== 'GET' && probe.statusCode >= 400 && probe.statusCode < 500) mode = 'body';
    else mode = 'open';
    const xsrfProtected = r.method !== 'GET' && (await probeOf(url, { xsrf: false })).statusCode === 419;
    routes.push({
      method: r.method,
      url,
      path: r.url,
      params: pathParams,
      body,
      query: queryParams.length ? queryParams : undefined,
      mode,
      xsrfProtected,
      schemas: r.schema,
    });
  }
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('hostile input, every route', () => {
  it('finds the routes of the app with their request schemas', () => {
    const byUrl = Object.fromEntries(routes.map((r) => [`${r.method} ${r.url}`, r.mode]));
    // A sample of what must be there; every other route is covered the same way.
    expect(byUrl).toMatchObject({
      'POST /api/users/login': 'body',
      'POST /api/users/register': 'body',
      'POST /api/users/restrictedLogin': 'body',
      'GET /api/users/info/get': 'auth',
      'POST /api/users/logout': 'auth',
      'GET /api/users/onetimeLinkByPromo': 'query',
      'GET /api/health': 'open',
    });
    expect(routes.length).toBeGreaterThanOrEqual(18);
    expect(
      routes.filter((r) => r.url.startsWith('/api/docs') || r.url.startsWith('/assets/')).map((r) => r.url),
    ).toEqual([]);
    // Sibling routes that share a prefix are whole paths, not a prefix plus a segment.
    expect(byUrl['POST /api/profile/sessions/revokeOthers']).toBeDefined();
  });

  it('refuses generated invalid bodies, queries and tokens with a clean 4xx and changes nothing', async () => {
    const before = await counts();
    const statuses = new Map<string, Set<number>>();
    for (const route of routes) {
      const seen = new Set<number>();
      statuses.set(`${route.method} ${route.url}`, seen);
      const what = (x: unknown) =>
        `${route.method} ${route.url} (${route.mode}) with ${JSON.stringify(x)?.slice(0, 300)}`;
      const host = fc.constantFrom('localhost', 'proxy.localhost', 'attacker.example', '[::1]');
      let property:
        fc.IAsyncPropertyWithHooks<[unknown, string, string?]> | fc.IAsyncPropertyWithHooks<[unknown, string]>;
      switch (route.mode) {
        case 'body': {
          const schema = route.body;
          const value = schema ? invalidBody(schema) : fc.anything();
          // Bodies the route cannot describe (encrypted text) also get well-encrypted garbage.
          const encrypted = fc.boolean();
          property = fc.asyncProperty(
            fc.tuple(value, encrypted),
            host,
            fc.option(fc.constantFrom(...restrictedKeys), { nil: undefined }),
            async ([v, enc], h, key) => {
              const json = JSON.stringify(v) ?? '';
              const res =
                !schema && enc && key
                  ? await send(route, { payload: encryptText(key, json), contentType: 'text/plain', host: h })
                  : await send(route, { payload: json, host: h });
              seen.add(res.statusCode);
              assertRefused(res, what(v));
            },
          );
          break;
        }
        case 'query':
          property = fc.asyncProperty(invalidQuery(route.query!), host, async (q, h) => {
            const res = await send(route, { query: q, host: h, ...(route.method !== 'GET' ? { payload: '{}' } : {}) });
            seen.add(res.statusCode);
            assertRefused(res, what(q));
          });
          break;
        case 'auth':
          property = fc.asyncProperty(fc.tuple(bogusToken, fc.anything()), host, async ([bogus, v], h) => {
            const res = await send(route, {
              auth: bogus,
              host: h,
              ...(route.method !== 'GET'
                ? { payload: JSON.stringify(v) ?? '{}' }
                : { query: new URLSearchParams({ x: JSON.stringify(v) ?? '' }).toString() }),
            });
            seen.add(res.statusCode);
            assertRefused(res, what([bogus, v]));
          });
          break;
        case 'open':
          property = fc.asyncProperty(
            fc.dictionary(
              fc.string({ maxLength: 10 }),
              hostileString.filter((s) => !s.includes('\u0000')),
              { maxKeys: 5 },
            ),
            host,
            async (q, h) => {
              const res = await send(route, {
                query: new URLSearchParams(q).toString(),
                host: h,
                auth: null,
                ...(route.method !== 'GET' ? { payload: '{}' } : {}),
              });
              seen.add(res.statusCode);
              assertHarmless(res, what(q));
            },
          );
          break;
      }
      const started = performance.now();
      await fc.assert(property, { numRuns: NUM_RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) });
      if (process.env.HOSTILE_TIMING)
        console.log(
          `${route.mode.padEnd(5)} ${(performance.now() - started).toFixed(0).padStart(6)} ms ${route.method} ${route.url} ${[...seen].join(',')}`,
        );
    }
    expect(await counts()).toEqual(before);
    // The validation layer was actually reached: bodies and queries were refused as such (422 / 400), not only by XSRF.
    for (const route of routes.filter((r) => r.mode === 'body' || r.mode === 'query')) {
      const seen = statuses.get(`${route.method} ${route.url}`)!;
      expect(seen.has(419), `${route.url} answered 419`).toBe(false);
      expect(
        [...seen].some((s) => s === 422 || s === 400),
        `${route.url}: ${[...seen]}`,
      ).toBe(true);
    }
    // And the token used throughout still works.
    expect((await send({ method: 'GET', url: '/api/users/info/get', mode: 'auth' }, {})).statusCode).toBe(200);
  }, 120_000);

  it('refuses the fixed corpus on every route', async () => {
    // Compared route by route: a route that accepted a well-typed odd value (a first name of
    // "' or 1=1--") stored it as data, and the next route starts from there; every other route
    // must leave every row of every table as it was.
    let before = await counts();
    const MB = 'a'.repeat(1024 * 1024);
    for (const route of routes) {
      acceptedWrite = false;
      const auth = route.mode === 'auth' ? 'not-a-real-token-but-long-enough-1234' : undefined;
      // Exact statuses where the route uses the app's JSON parsing; any clean 4xx elsewhere (raw, signed bodies).
      const strict = !!route.body;
      const check = (res: LightMyRequestResponse, label: string, status?: number) =>
        route.mode === 'open' && route.method === 'GET'
          ? assertHarmless(res, `${route.url} ${label}`)
          : assertRefused(res, `${route.method} ${route.url} ${label}`, strict ? status : undefined);

      // A body the schema may accept (all its fields optional, say) is fine to accept: then only "no harm" is asked.
      const checkBody = (res: LightMyRequestResponse, label: string, sent: unknown, status?: number) =>
        route.body && maybeValid(route.body, sent) && !hasHardViolation(route.body, sent as Record<string, unknown>)
          ? assertHarmless(res, `${route.method} ${route.url} ${label}`)
          : check(res, label, status);

      if (route.method !== 'GET') {
        const defaultLimit = !OWN_BODY_LIMIT.has(route.path ?? route.url);
        assertRefused(
          await send(route, { payload: JSON.stringify({ email: MB }), auth }),
          `${route.url} 1 MB JSON`,
          defaultLimit ? 413 : undefined,
        );
        assertRefused(
          await send(route, { payload: MB, contentType: 'text/plain', auth }),
          `${route.url} 1 MB text`,
          defaultLimit ? 413 : undefined,
        );
        assertRefused(
          await send(route, { payload: `"${'b'.repeat(65_536)}"`, auth }),
          `${route.url} just over BODY_LIMIT_BYTES`,
          defaultLimit ? 413 : undefined,
        );
        check(await send(route, { payload: '{"email":', auth }), 'malformed JSON', 400);
        check(await send(route, { payload: '{"a":1,}', auth }), 'trailing comma', 400);
        check(await send(route, { payload: "{'a':1}", auth }), 'single quotes', 400);
        check(await send(route, { payload: '', auth }), 'empty JSON body', 400);
        check(await send(route, { payload: '{"__proto__":{"x":1}}', auth }), '__proto__', 400);
        check(await send(route, { payload: '{"a":{"__proto__":{"isAdmin":true}}}', auth }), 'nested __proto__', 400);
        check(
          await send(route, { payload: '{"constructor":{"prototype":{"x":1}}}', auth }),
          'constructor.prototype',
          400,
        );
        check(await send(route, { payload: '<a>1</a>', contentType: 'application/xml', auth }), 'xml', 415);
        // HTML-form bodies: 415 unless the route takes them (then a form lacking the required fields is refused like JSON).
        const form = await send(route, {
          payload: '__proto__=x&constructor=y&x=1&x=2',
          contentType: 'application/x-www-form-urlencoded',
          auth,
        });
        if (FORM_BODY_ROUTES.has(`${route.method} ${route.path}`))
          checkBody(
            form,
            'form',
            Object.fromEntries([
              ['__proto__', 'x'],
              ['constructor', 'y'],
              ['x', ['1', '2']],
            ]),
          );
        else assertRefused(form, `${route.url} form`, 415);
        assertRefused(
          await send(route, { payload: 'a=1', contentType: 'Application/X-WWW-Form-Urlencoded ; charset=utf-8', auth }),
          `${route.url} form, odd spelling`,
          FORM_BODY_ROUTES.has(`${route.method} ${route.path}`) ? undefined : 415,
        );
        // Deep JSON: nesting far beyond any schema, within the body limit.
        check(await send(route, { payload: '['.repeat(20_000) + ']'.repeat(20_000), auth }), 'deep array', 422);
        checkBody(
          await send(route, { payload: '{"a":'.repeat(6_000) + '1' + '}'.repeat(6_000), auth }),
          'deep object',
          { a: {} },
          422,
        );
        check(
          await send(route, {
            payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
            contentType: 'multipart/form-data; boundary=x',
            auth,
          }),
          'multipart',
          415,
        );
        check(
          await send(route, {
            payload: Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
            contentType: 'application/octet-stream',
            auth,
          }),
          'binary',
          415,
        );
        checkBody(
          await send(route, { payload: Buffer.from('{"email":"\xff\xfe"}', 'latin1'), auth }),
          'invalid UTF-8',
          { email: '\ufffd\ufffd' },
        );
        checkBody(
          await send(route, { payload: '{}', contentType: 'application/json; charset=utf-16', auth }),
          'odd charset',
          {},
        );
        assertRefused(
          await send(route, { payload: '{}', xsrf: false }),
          `${route.url} without XSRF`,
          route.xsrfProtected ? 419 : undefined,
        );
        assertRefused(
          await send(route, { payload: '{}', rawHeaders: { 'x-xsrf-token': 'forged.value' } }),
          `${route.url} forged XSRF`,
          route.xsrfProtected ? 419 : undefined,
        );
        // Odd authorization headers: other schemes, empty, huge, and a token with spaces.
        for (const authorization of [
          'Basic YWRtaW46YWRtaW4=',
          'Bearer',
          'Bearer  ',
          `Bearer ${'x'.repeat(8_000)}`,
          `Bearer ${token} extra`,
          'Bearer a\tb',
          `Token ${token}`,
        ]) {
          const res = await send(route, { payload: '{}', auth: null, rawHeaders: { authorization } });
          if (route.mode === 'open') assertHarmless(res, `${route.url} authorization ${authorization.slice(0, 20)}`);
          else assertRefused(res, `${route.url} authorization ${authorization.slice(0, 20)}`);
        }
      }

      // Hostile path parameters.
      for (const name of route.params ?? []) {
        for (const value of [
          "'%20or%201=1--",
          '%00',
          'x'.repeat(250),
          '..%2F..%2Fetc%2Fpasswd',
          '%E0%A4%A',
          '%F0%9F%98%80',
          '-1',
          '99999999999999999999',
        ]) {
          const segments = route.url.split('/');
          segments[route.path!.split('/').indexOf(`:${name}`)] = value;
          const url = segments.join('/');
          const res = await send({ ...route, url }, { auth, ...(route.method !== 'GET' ? { payload: '{}' } : {}) });
          if (route.method === 'GET') assertHarmless(res, `${route.method} ${url.slice(0, 80)}`);
          else assertRefused(res, `${route.method} ${url.slice(0, 80)}`);
        }
      }

      const bodies: unknown[] = [[], null, 'string', 123, true, {}, [{}], { email: ["' or 1=1--"] }];
      if (route.body) {
        const props = Object.keys(route.body.properties ?? {});
        for (const odd of ODD_STRINGS) bodies.push(Object.fromEntries(props.map((p) => [p, odd])));
        bodies.push(Object.fromEntries(props.map((p) => [p, { $gt: '' }])));
        bodies.push(Object.fromEntries(props.map((p) => [p, ['a', 'b']])));
        bodies.push({
          ...Object.fromEntries(props.map((p) => [p, 'x'])),
          ...(route.body.required?.length ? { [route.body.required[0]!]: undefined } : {}),
        });
      }
      if (route.method !== 'GET') {
        for (const b of bodies) {
          const res = await send(route, { payload: JSON.stringify(b), auth });
          // Odd but well-typed strings may be legitimate values (a session id of "' or 1=1--"): never a 5xx then.
          checkBody(res, `body ${JSON.stringify(b).slice(0, 80)}`, b);
        }
      }

      // Queries that name no parameter of the route, or repeat unknown ones: harmless at worst.
      // They go with a wrong token so that an authenticated route cannot act on them.
      const generic = [
        'a=1&a=2',
        `q=${'x'.repeat(100_000)}`,
        'to=%00',
        'to=%ZZ',
        '__proto__[x]=1',
        'constructor[prototype][x]=1',
        "to=' or 1=1--",
        'promocode[]=1',
        'to[a]=1',
      ];
      for (const q of generic) {
        const res = await send(route, {
          query: q,
          auth: route.mode === 'open' ? null : 'not-a-real-token-but-long-enough-1234',
          ...(route.method !== 'GET' ? { payload: '[]' } : {}),
        });
        if (route.mode === 'open' || route.mode === 'query') assertHarmless(res, `${route.url}?${q.slice(0, 60)}`);
        else assertRefused(res, `${route.method} ${route.url}?${q.slice(0, 60)}`);
      }
      // Queries that break a declared parameter: refused, with the valid token.
      for (const p of route.query ?? []) {
        for (const q of [
          `${p.name}=1&${p.name}=2`,
          `${p.name}=${'y'.repeat((p.schema.maxLength ?? 1000) + 1)}`,
          `${p.name}=a&${p.name}=%00&${p.name}=`,
        ]) {
          assertRefused(
            await send(route, { query: q, ...(route.method !== 'GET' ? { payload: '{}' } : {}) }),
            `${route.method} ${route.url}?${q.slice(0, 60)}`,
          );
        }
      }
      const after = await counts();
      if (!acceptedWrite)
        expect(after, `${route.method} ${route.url} refused everything yet changed rows`).toEqual(before);
      before = after;
    }
  }, 90_000);

  it('holds every number a route takes to its column, and refuses boundary numbers with a 422, never a 5xx', async () => {
    // Every number field of every route (body, query string, path), found in the route's own schema.
    const MARKER = '@@number-under-test@@';
    const problems: string[] = [];
    let fields = 0;
    let before = await counts();
    for (const route of routes) {
      const schemas = {
        body: toJsonSchema(route.schemas?.body),
        query: toJsonSchema(route.schemas?.querystring),
        params: toJsonSchema(route.schemas?.params),
      };
      const slots = (['body', 'query', 'params'] as const).flatMap((where) =>
        schemas[where] ? numberSlots(schemas[where]).map((slot) => ({ where, ...slot })) : [],
      );
      if (!slots.length) continue;
      acceptedWrite = false;
      for (const slot of slots) {
        fields++;
        const field = `${route.method} ${route.path} ${slot.where}.${slot.path.join('.')}`;
        const unbounded = unboundedNumber(slot.schema);
        if (unbounded) problems.push(`${field}: ${unbounded}`);
        const values = slot.where === 'body' ? BOUNDARY_JSON : BOUNDARY_TEXT;
        for (const raw of values) {
          let res: LightMyRequestResponse;
          let n: number;
          if (slot.where === 'body') {
            const parsed: unknown = JSON.parse(raw);
            n = typeof parsed === 'number' ? parsed : Number(parsed);
            const payload = JSON.stringify(withValueAt(schemas.body!, slot.path, MARKER)).replace(
              JSON.stringify(MARKER),
              raw,
            );
            res = await send(route, { payload });
          } else if (slot.where === 'query') {
            n = Number(raw);
            const query = new URLSearchParams(
              withValueAt(schemas.query!, slot.path, raw) as Record<string, string>,
            ).toString();
            res = await send(route, { query, ...(route.method !== 'GET' ? { payload: '{}' } : {}) });
          } else {
            n = Number(raw);
            if (raw === '') continue; // an empty segment is another route
            const segments = route.url.split('/');
            segments[route.path!.split('/').indexOf(`:${String(slot.path[0])}`)] = encodeURIComponent(raw);
            res = await send({ ...route, url: segments.join('/') }, route.method !== 'GET' ? { payload: '{}' } : {});
          }
          const what = `${field} = ${raw}: ${res.statusCode} ${res.body.slice(0, 200)}`;
          if (res.statusCode >= 500) problems.push(what);
          else if (outOfRange(slot.schema, n) && res.statusCode !== 422) problems.push(`${what} (expected 422)`);
          else if (res.statusCode >= 400) assertErrorBody(res, what);
        }
      }
      const after = await counts();
      if (!acceptedWrite)
        expect(after, `${route.method} ${route.url} refused everything yet changed rows`).toEqual(before);
      before = after;
    }
    // The suite reached the fields the finding was about, and more.
    expect(fields).toBeGreaterThanOrEqual(20);
    expect(problems).toEqual([]);
  }, 120_000);

  it('treats SQL in the email as data: a syntactically valid but hostile email signs in nobody and creates nothing', async () => {
    const before = await counts();
    const c = new TestClient(app);
    for (const email of ["x'--@example.com", "o'reilly+1=1@example.com", 'a@example.com']) {
      const res = await c.post('/api/users/login', { email, password: "' or 1=1--" });
      assertRefused(res, `login ${email}`, 422);
      const reset = await c.post('/api/users/requestResetPassword', {
        email: `${email.split('@')[0]}' or '1'='1@example.com`,
      });
      expect(reset.statusCode).toBeLessThan(500);
    }
    await app.settle();
    expect(await counts()).toEqual(before);
  });

  it('stores no NUL bytes or broken unicode: otherwise valid calls carrying them are refused with 422, not a 5xx', async () => {
    const c = new TestClient(app);
    const { user } = await registerUser(c);
    const before = await counts();
    const cases: [string, Record<string, unknown>][] = [
      [
        '/api/users/register',
        {
          name: 'nul\u0000name',
          email: `nul.${Date.now()}@example.com`,
          password: 'correct horse battery',
          password_confirmation: 'correct horse battery',
        },
      ],
      [
        '/api/users/register',
        {
          name: 'lone \ud800 surrogate',
          email: `sur.${Date.now()}@example.com`,
          password: 'correct horse battery',
          password_confirmation: 'correct horse battery',
        },
      ],
      [
        '/api/users/register',
        {
          email: `ref.${Date.now()}@example.com`,
          password: 'correct horse battery',
          password_confirmation: 'correct horse battery',
          referralID: 'r\u0000',
        },
      ],
      ['/api/users/session/set', { sessionID: 'sess\u0000ion' }],
      ['/api/users/session/set', { sessionID: 'sess \udc00 ion' }],
      ['/api/users/session/set', { sessionID: 'ok', voluumID: '\u0000' }],
      ['/api/users/verifyUser', { userId: user.id, token: 'tok\u0000en' }],
      ['/api/users/login', { email: 'nobody@example.com', password: 'pass\u0000word', cid: '\u0000' }],
    ];
    for (const [url, body] of cases) {
      const res = await c.post(url, body);
      assertRefused(res, `${url} ${JSON.stringify(body)}`, 422);
    }
    // The encrypted calls decode their own body: same rule after decryption.
    const [key] = restrictedKeys;
    const proxy = new TestClient(app, { host: 'proxy.localhost' });
    const sealed = encryptText(
      key!,
      JSON.stringify({
        name: 'n\u0000',
        email: `enc.${Date.now()}@example.com`,
        password: 'correct horse battery',
        password_confirmation: 'correct horse battery',
      }),
    );
    assertRefused(
      await proxy.post('/api/users/restrictedRegister', sealed, { headers: { 'content-type': 'text/plain' } }),
      'restrictedRegister with NUL',
      422,
    );
    expect(await counts()).toEqual(before);
  });
});
