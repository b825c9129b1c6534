import { vi } from 'vitest';

type Reply =
  | { status: number; body: unknown }
  | ((request: Request) => { status: number; body: unknown } | Promise<{ status: number; body: unknown }>);

/**
 * The API mocked at the HTTP boundary only: `fetch` answers per method and path under /api.
 * Everything above it (the api client, its error handling, React Query, the page) is the
 * real code. Unlisted requests answer 404. Returns the requests seen, e.g. to count retries.
 */
export function stubApi(routes: Record<string, Reply>) {
  const seen: string[] = [];
  const fetchStub = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request =
      input instanceof Request ? input : new Request(new URL(String(input), window.location.origin), init);
    const url = new URL(request.url);
    const key = `${request.method} ${url.pathname.replace(/^\/api\//, '')}`;
    seen.push(key);
    const route = routes[key];
    const reply =
      typeof route === 'function'
        ? await route(request.clone())
        : (route ?? { status: 404, body: { message: 'Not found' } });
    return new Response(JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchStub);
  // Node's Request (which the test environment has) cannot parse '/api/...'; a browser resolves
  // it against the page's address, and so does this one.
  const NodeRequest = globalThis.Request;
  class PageRequest extends NodeRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(
        typeof input === 'string' && input.startsWith('/') ? new URL(input, window.location.origin).href : input,
        init,
      );
    }
  }
  vi.stubGlobal('Request', PageRequest);
  return { seen, count: (key: string) => seen.filter((k) => k === key).length };
}
