/** "Chrome on Windows" from a user agent, for the sessions list; unknown parts say so. */
export function describeUserAgent(ua: string): { browser: string | null; os: string | null } {
  const browser = /Edg(e|A|iOS)?\//.test(ua)
    ? 'Edge'
    : /OPR\/|Opera/.test(ua)
      ? 'Opera'
      : /YaBrowser\//.test(ua)
        ? 'Yandex Browser'
        : /Firefox\/|FxiOS\//.test(ua)
          ? 'Firefox'
          : /Chrom(e|ium)\/|CriOS\//.test(ua)
            ? 'Chrome'
            : /Safari\//.test(ua) && /Version\//.test(ua)
              ? 'Safari'
              : /^(curl|Wget|okhttp|python-requests|node)/i.test(ua)
                ? ua.split('/')[0]!
                : null;
  const os = /Windows Phone/.test(ua)
    ? 'Windows Phone'
    : /Windows NT/.test(ua)
      ? 'Windows'
      : /iPhone|iPod/.test(ua)
        ? 'iOS'
        : /iPad/.test(ua)
          ? 'iPadOS'
          : /Android/.test(ua)
            ? 'Android'
            : /CrOS/.test(ua)
              ? 'ChromeOS'
              : /Mac OS X|Macintosh/.test(ua)
                ? 'macOS'
                : /Linux/.test(ua)
                  ? 'Linux'
                  : null;
  return { browser, os };
}

/** The recovery codes as a text file (one a line) for the Download button. */
export function recoveryCodesFile(product: string, email: string, codes: readonly string[]): string {
  return [`${product} recovery codes for ${email}`, 'Each code signs you in once when you cannot use your authenticator app.', '', ...codes, ''].join('\n');
}

/** The secret in groups of four, easier to type into an authenticator app. */
export function groupSecret(secret: string): string {
  return secret.replace(/\s+/g, '').replace(/(.{4})/g, '$1 ').trim();
}
