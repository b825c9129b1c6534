import { randomBytes } from 'node:crypto';
import { expect, vi } from 'vitest';
import { FALLBACK_BRAND, setBrand } from '../lib/brand';
import { decryptPayload, encryptPayload } from '../lib/restricted-crypto';
import { setToken } from '../lib/token';
import { stubApi } from './http';

/** A restricted brand's key for one test file, and a stored session token. */
export const RESTRICTED_KEY = randomBytes(32).toString('base64');
export const STORED_TOKEN = 'stored-bearer-token-0123456789abcdef';

export interface SeenRequest {
  path: string;
  contentType: string | null;
  authorization: string | null;
  text: string;
}

/** The page is on a restricted host (mainProduct false, the key above) with a signed-in session. */
export function onRestrictedHost(): void {
  setBrand({ ...FALLBACK_BRAND, mainProduct: false, restrictedKey: RESTRICTED_KEY });
  setToken(STORED_TOKEN);
}

/** The API at the HTTP boundary: answers every call with `answer` sealed under the brand key, and records what it got. */
export function stubRestrictedApi(answer: unknown, headers: Record<string, string> = {}): SeenRequest[] {
  stubApi({}); // the page's Request (relative URLs), then this fetch
  const seen: SeenRequest[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const request =
      input instanceof Request ? input : new Request(new URL(String(input), window.location.origin), init);
    seen.push({
      path: new URL(request.url).pathname,
      contentType: request.headers.get('content-type'),
      authorization: request.headers.get('authorization'),
      text: await request.text(),
    });
    return new Response(await encryptPayload(answer, RESTRICTED_KEY), {
      status: 200,
      headers: { 'content-type': 'text/plain', ...headers },
    });
  });
  return seen;
}

/**
 * One restricted call as the web app makes it: one request to `path`, encrypted text, no bearer
 * header, none of `clear` readable in it; the decrypted body holds `inside`, and the session
 * token under `sessionField` (or nowhere).
 */
export async function expectRestrictedCall(
  call: () => Promise<unknown>,
  {
    path,
    answer,
    inside,
    sessionField,
    clear,
  }: {
    path: string;
    answer: unknown;
    inside: Record<string, unknown>;
    sessionField: 'token' | 'sessionToken' | null;
    clear: string[];
  },
): Promise<void> {
  onRestrictedHost();
  const seen = stubRestrictedApi(answer);
  await call();
  expect(seen.map((s) => [s.path, s.contentType, s.authorization])).toEqual([[path, 'text/plain', null]]);
  for (const s of [STORED_TOKEN, ...clear]) expect(seen[0]!.text).not.toContain(s);
  const body = await decryptPayload<Record<string, unknown>>(seen[0]!.text, RESTRICTED_KEY);
  expect(body).toMatchObject(inside);
  if (sessionField) expect(body[sessionField]).toBe(STORED_TOKEN);
  else expect(Object.values(body)).not.toContain(STORED_TOKEN);
}
