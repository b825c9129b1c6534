import { asPublicBrand, brandify, type PublicBrand } from '@warren/contract';

/** Used only when neither the page nor the API can tell us the brand (offline dev). */
export const FALLBACK_BRAND: PublicBrand = {
  id: 'warren',
  productName: 'Warren VPN',
  kind: 'vpn',
  logo: '',
  mainProduct: true,
  paymentFirst: false,
  helpCenterUrl: 'https://help.warren.invalid',
  affiliatePortalUrl: null,
  supportChat: null,
  restrictedKey: null,
  captcha: { provider: 'none', siteKey: null },
  testAccountSuffixes: ['@test.warren.invalid'],
  redirectHosts: [],
  scripts: [],
};

let current: PublicBrand = FALLBACK_BRAND;

/** The brand the API embedded in index.html (script#warren-brand), if any. */
export function readEmbeddedBrand(doc: Document = document): PublicBrand | null {
  const el = doc.getElementById('warren-brand');
  if (!el?.textContent) return null;
  try {
    return asPublicBrand(JSON.parse(el.textContent));
  } catch {
    return null;
  }
}

/** Embedded brand first; in vite dev (no embedding) ask GET /api/brand. */
export async function loadBrand(): Promise<PublicBrand> {
  const embedded = readEmbeddedBrand();
  if (embedded) {
    current = embedded;
    return current;
  }
  try {
    const res = await fetch('/api/brand', { headers: { accept: 'application/json' } });
    if (res.ok) {
      const body = (await res.json()) as { data?: unknown };
      current = asPublicBrand(body.data) ?? current;
    }
  } catch {
    /* keep the fallback */
  }
  return current;
}

export function getBrand(): PublicBrand {
  return current;
}

/** Tests and previews. */
export function setBrand(brand: PublicBrand): void {
  current = brand;
}

/** "{productName} | {page title}", or just the product name. */
export function formatTitle(
  productName: string,
  pageTitle: string | null | undefined,
  kind: PublicBrand['kind'],
): string {
  const title = pageTitle ? `${productName} | ${pageTitle}` : productName;
  return brandify(title, kind);
}
