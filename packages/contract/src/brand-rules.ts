// Pure brand rules, free of zod (see account-rules.ts).
import type { PublicBrand } from './brand.js';

/** Replaces the word VPN with Proxy on proxy brands (titles and copy). */
export function brandify(text: string, kind: PublicBrand['kind']): string {
  return kind === 'proxy' ? text.replace(/\bVPN\b/g, 'Proxy') : text;
}
