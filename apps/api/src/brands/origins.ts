import type { Brand, BrandRegistry } from './registry.js';

import type { ParsedHost } from './host.js';

export { type ParsedHost, parseHost } from './host.js';

export interface OriginSettings {
  /** PUBLIC_URL: the canonical origin (and path prefix) of the brand whose hosts hold its host, or else of the first brand. */
  publicUrl?: string;
  isProduction: boolean;
  /** The port this server listens on: development links to a brand's first host carry it. */
  port: number;
}

export interface BrandOrigins {
  /**
   * Where a brand's links point when no request says more (renewal mails, the operator's mails),
   * and for every request when one is configured: the brand's `origin` in the registry, else
   * PUBLIC_URL for its brand, else https://<first host> in production. Without any of them (a
   * development server) it is http://<first host>:<PORT>.
   */
  canonical(brand: Brand): string;
  /**
   * The origin for links written while answering a request whose Host parsed to `host` (undefined:
   * no Host header). Built from the registry and the configuration only, never from the Host's
   * text: a configured origin always wins; only a development server without one keeps the
   * registered host name the request came to and its port (dev servers and tests listen on any port).
   * The request's scheme (X-Forwarded-Proto) and X-Forwarded-Host are never read.
   */
  forRequest(brand: Brand, host: ParsedHost | undefined): string;
  /**
   * Whether a link may point at `url` (the mailer's guard, mail/link-guard.ts): a brand's
   * canonical origin, a URL configured in the registry (help centre, affiliate portal, support
   * chat), or, outside production, a registered host on any port.
   */
  isTrusted(url: URL): boolean;
}

export function brandOrigins(brands: BrandRegistry, settings: OriginSettings): BrandOrigins {
  const all = brands.all();
  const publicHost = settings.publicUrl ? new URL(settings.publicUrl).hostname : undefined;
  const publicBrand = publicHost
    ? (all.find((b) => b.hosts.some((h) => h.toLowerCase() === publicHost)) ?? all[0])
    : undefined;
  /** The origin configured for a brand, if any. */
  const configured = (brand: Brand): string | undefined =>
    brand.origin?.replace(/\/+$/, '') ??
    (publicBrand?.id === brand.id ? settings.publicUrl : undefined) ??
    (settings.isProduction ? `https://${brand.hosts[0]}` : undefined);
  const devOrigin = (hostname: string, port: number | undefined) =>
    `http://${hostname}${port === undefined || port === 80 ? '' : `:${port}`}`;
  const canonical = (brand: Brand) => configured(brand) ?? devOrigin(brand.hosts[0]!.toLowerCase(), settings.port);

  const trustedOrigins = new Set<string>();
  const registeredHosts = new Set<string>();
  for (const b of all) {
    trustedOrigins.add(new URL(canonical(b)).origin);
    for (const u of [b.helpCenterUrl, b.affiliatePortalUrl, b.supportChat?.botUrl])
      if (u) trustedOrigins.add(new URL(u).origin);
    for (const h of b.hosts) registeredHosts.add(h.toLowerCase());
  }
  if (settings.publicUrl) trustedOrigins.add(new URL(settings.publicUrl).origin);

  return {
    canonical,
    forRequest(brand, host) {
      const fixed = configured(brand);
      if (fixed) return fixed;
      // The registry's spelling of the host, matched exactly: the request's text never goes into the link.
      const registered = host && brand.hosts.find((h) => h.toLowerCase() === host.hostname);
      return registered ? devOrigin(registered.toLowerCase(), host.port) : canonical(brand);
    },
    isTrusted(url) {
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return false;
      if (trustedOrigins.has(url.origin)) return true;
      return !settings.isProduction && url.protocol === 'http:' && registeredHosts.has(url.hostname);
    },
  };
}
