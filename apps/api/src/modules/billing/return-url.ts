/**
 * Where a provider may send the browser back to: only the current origin or a host of the
 * brand registry, over http(s), without credentials. Anything else is refused (no open redirect).
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
  try {
    url = new URL(input, origin);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  const base = new URL(origin);
  if (url.host !== base.host && !isKnownHost(url.host)) return null;
  return url;
}
