import { z } from 'zod';

/**
 * What the SPA learns about the brand it runs under. The API resolves it from the Host
 * header and embeds it in index.html (script#warren-brand), so no extra round trip.
 */
export const publicBrand = z.object({
  id: z.string(),
  productName: z.string(),
  kind: z.enum(['vpn', 'proxy']),
  logo: z.string(),
  /** Main-product hosts use the direct login/register calls; the others the restricted, encrypted ones. */
  mainProduct: z.boolean(),
  paymentFirst: z.boolean(),
  helpCenterUrl: z.string(),
  affiliatePortalUrl: z.string().nullable(),
  supportChat: z.object({ botUrl: z.string() }).nullable(),
  /**
   * Key for the restricted calls' AES-256-GCM payloads (base64, 32 bytes). It is in the page on
   * purpose: the encryption hides the payloads from on-path filters that block the product, it is
   * not a secret from the user.
   */
  restrictedKey: z.string().nullable(),
  captcha: z.object({ provider: z.enum(['none', 'recaptcha', 'turnstile']), siteKey: z.string().nullable() }),
  testAccountSuffixes: z.array(z.string()),
  /** Every host in the brand registry: the only hosts a payment return may send the browser to. */
  redirectHosts: z.array(z.string()),
  /** Analytics, session-recording, tag-manager, help-chat and web-analytics snippets for this host (CSP allows exactly these). */
  scripts: z
    .array(
      z.object({
        kind: z.enum(['analytics', 'session-recording', 'tag-manager', 'help-chat', 'web-analytics']),
        src: z.string(),
      }),
    )
    .default([]),
  /** The checkout's auto-renew choice starts on (absent: on). */
  autoRenewDefault: z.boolean().optional(),
});
export type PublicBrand = z.infer<typeof publicBrand>;
