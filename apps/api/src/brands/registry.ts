import fs from 'node:fs';
import { z } from 'zod';
import type { PublicBrand } from '@warren/contract';
import { parseHost } from './host.js';

const scriptSnippet = z.object({
  kind: z.enum(['analytics', 'session-recording', 'tag-manager', 'help-chat', 'web-analytics']),
  src: z.url(),
});

const brandEntry = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/),
  hosts: z
    .array(
      z
        .string()
        .min(1)
        .refine(
          (h) => parseHost(h)?.port === undefined && !!parseHost(h),
          'must be a host name or [IPv6 address], without a port',
        ),
    )
    .min(1),
  /**
   * The origin every link of this brand points at (mails, payment return and callback URLs), e.g.
   * `https://vpn.example.com`. Absent: PUBLIC_URL when its host is one of this brand's, else
   * https://<first host> in production (brands/origins.ts).
   */
  origin: z
    .url({ protocol: /^https?$/ })
    .refine((u) => new URL(u).origin === u.replace(/\/+$/, ''), 'must be an origin: scheme, host and port only')
    .optional(),
  productName: z.string().min(1),
  kind: z.enum(['vpn', 'proxy']),
  logo: z.string(),
  mainProduct: z.boolean(),
  paymentFirst: z.boolean().default(false),
  helpCenterUrl: z.url(),
  affiliatePortalUrl: z.url().nullable().default(null),
  supportChat: z.object({ botUrl: z.url() }).nullable().default(null),
  restrictedKey: z
    .string()
    .refine((k) => Buffer.from(k, 'base64').length === 32, 'must be 32 bytes, base64')
    .nullable()
    .default(null),
  scripts: z.array(scriptSnippet).default([]),
  /** Offers the WireGuard section (/setup/wg and its API); off hides it for every account of the brand. */
  wgSection: z.boolean().default(true),
  /** The checkout's auto-renew choice starts on (true) or off for this brand's customers (issue 13). */
  autoRenewDefault: z.boolean().default(true),
  /**
   * Who sells under this brand, as printed on receipts (modules/billing/receipts.ts). Absent: the
   * product name alone, no address, tax id or tax line, numbered in the brand's own sequence.
   */
  seller: z
    .object({
      /** The receipt number sequence: brands that share a legal seller share its id (and its sequence). */
      id: z
        .string()
        .regex(/^[a-z0-9-]+$/)
        .optional(),
      legalName: z.string().min(1).max(200).optional(),
      address: z.array(z.string().min(1).max(200)).max(6).default([]),
      taxId: z.string().min(1).max(60).nullable().default(null),
      email: z.string().email().nullable().default(null),
      /** Printed before the number: PREFIX-000042. */
      receiptPrefix: z
        .string()
        .regex(/^[A-Z0-9-]{1,20}$/)
        .optional(),
      /** A tax line on every receipt; prices include it. */
      tax: z
        .object({ label: z.string().min(1).max(40), ratePercent: z.number().gt(0).max(100) })
        .nullable()
        .default(null),
    })
    .optional(),
});
export type Brand = z.infer<typeof brandEntry>;

const registryFile = z.object({ brands: z.array(brandEntry).min(1) }).superRefine((r, ctx) => {
  r.brands.forEach((b, i) => {
    if (!b.mainProduct && !b.restrictedKey)
      ctx.addIssue({
        code: 'custom',
        path: ['brands', i, 'restrictedKey'],
        message: 'is required for a brand that is not a main product',
      });
  });
});

export interface BrandRegistry {
  /** Resolves a Host header (parsed strictly, port ignored); unknown and malformed hosts get the first brand. */
  forHost(host: string | undefined): Brand;
  byId(id: string): Brand | undefined;
  /** True when a host name (a URL's hostname: no port) is exactly a registered host: redirects may only go there. */
  isKnownHost(hostname: string): boolean;
  all(): readonly Brand[];
}

export function loadBrandRegistry(file: string): BrandRegistry {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read the brand registry ${file}: ${(err as Error).message}`);
  }
  const parsed = registryFile.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `Invalid brand registry ${file}:\n${parsed.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  }
  const brands = parsed.data.brands;
  const byHost = new Map<string, Brand>();
  for (const b of brands) for (const h of b.hosts) byHost.set(h.toLowerCase(), b);
  const fallback = brands[0]!;
  return {
    forHost: (host) => (host === undefined ? undefined : byHost.get(parseHost(host)?.hostname ?? '')) ?? fallback,
    byId: (id) => brands.find((b) => b.id === id),
    isKnownHost: (hostname) => byHost.has(hostname.toLowerCase()),
    all: () => brands,
  };
}

export function toPublicBrand(
  b: Brand,
  extra: { captcha: PublicBrand['captcha']; testAccountSuffixes: string[]; redirectHosts: string[] },
): PublicBrand {
  return {
    id: b.id,
    productName: b.productName,
    kind: b.kind,
    logo: b.logo,
    mainProduct: b.mainProduct,
    paymentFirst: b.paymentFirst,
    helpCenterUrl: b.helpCenterUrl,
    affiliatePortalUrl: b.affiliatePortalUrl,
    supportChat: b.supportChat,
    restrictedKey: b.restrictedKey,
    captcha: extra.captcha,
    testAccountSuffixes: extra.testAccountSuffixes,
    redirectHosts: extra.redirectHosts,
    scripts: b.scripts,
    autoRenewDefault: b.autoRenewDefault,
  };
}
