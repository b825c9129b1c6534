/**
 * "Chrome on Windows" from a user agent: the web app's sessions list and the API's new-browser
 * mail name a browser the same way. Only families, never versions; unknown parts are null.
 */
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
