import type { PublicBrand } from '@warren/contract';

/**
 * Analytics, session-recording, tag-manager, help-chat and web-analytics snippets the brand
 * registry lists for this host (none by default). Each one is a plain async script element; the
 * API's Content-Security-Policy allows exactly these hosts. Idempotent.
 */
export function injectBrandScripts(scripts: PublicBrand['scripts'], doc: Document = document): HTMLScriptElement[] {
  const added: HTMLScriptElement[] = [];
  for (const s of scripts) {
    let url: URL;
    try {
      url = new URL(s.src);
    } catch {
      continue;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') continue;
    if (doc.querySelector(`script[data-brand-script="${CSS.escape(url.href)}"]`)) continue;
    const el = doc.createElement('script');
    el.src = url.href;
    el.async = true;
    el.dataset.brandScript = url.href;
    el.dataset.kind = s.kind;
    doc.head.appendChild(el);
    added.push(el);
  }
  return added;
}
