/**
 * Where a provider may send the browser back to: exactly a registered origin (the scheme and
 * port of the request's own origin, on its host or another host of the brand registry) plus a
 * path that starts with exactly one `/`. Anything else is refused (no open redirect): another
 * port or scheme on a brand host, credentials, `//evil.com` or `/\evil.com` paths.
 */
export function safeReturnUrl(input: string, origin: string, isKnownHost: (host: string) => boolean): URL | null {
  // Backslashes and control characters are how browsers and servers disagree about URLs.
  if (!input || input.length > 2048 || /[\\\u0000-\u001f\u007f]/.test(input)) return null;
  // Either a path on this origin or an absolute http(s) URL; odd forms like `http:host` are refused.
  if (!input.startsWith('/') && !/^https?:\/\/[^/\\]/i.test(input)) return null;
  if (input.startsWith('//')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(input);
  } catch {
    return null;
  }
  if (/[\\\u0000-\u001f\u007f\u2028\u2029]/.test(decoded)) return null;
  let url: URL;
  let base: URL;
  try {
    base = new URL(origin);
    url = new URL(input, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  // The origin, whole: same scheme and port as the origin the buyer is on (URL normalises default ports away).
  if (url.protocol !== base.protocol || url.port !== base.port) return null;
  if (url.hostname !== base.hostname && !isKnownHost(url.hostname)) return null;
  // One leading slash, also once decoded: `//evil.com` and `/%2F/evil.com` read as another host to some routers and browsers.
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (/^\/[/\\]/.test(url.pathname) || /^\/[/\\]/.test(path)) return null;
  return url;
}
