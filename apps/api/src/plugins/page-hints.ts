import fs from 'node:fs';
import path from 'node:path';
import { languageFromTag, type Language } from '@warren/contract';

/** What apps/web/build/route-preloads.ts writes: a path's page files the HTML does not already load. */
export type RoutePreloads = Record<string, { js: string[]; css: string[] }>;

export function readRoutePreloads(distDir: string): RoutePreloads {
  try {
    return JSON.parse(fs.readFileSync(path.join(distDir, 'route-preloads.json'), 'utf8')) as RoutePreloads;
  } catch {
    return {}; // an older build: pages still load, one round trip later
  }
}

/**
 * The language the web app will pick on a first visit: the browser's first language if the
 * app speaks it, else English (spec section 3; navigator.language is the first entry of
 * Accept-Language). A stored choice can differ; then the hint costs one small download.
 */
export function firstVisitLanguage(acceptLanguage: string | undefined): Language {
  return languageFromTag(acceptLanguage?.split(',')[0]);
}

const SAFE_URL = /^\/[A-Za-z0-9/_.-]+$/;

/**
 * `<link>` hints for index.html: the page's code (modulepreload) and styles, and the
 * translations, so they download with the app's own code instead of after it runs.
 */
export function pageHints(pathname: string, preloads: RoutePreloads, language: Language, serverRendered = false): string {
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const route = preloads[clean] ?? (clean.startsWith('/plans/') ? preloads['/plans'] : undefined);
  const links = [`<link rel="preload" href="/assets/i18n/${language}.json" as="fetch" crossorigin>`];
  for (const href of route?.js ?? []) if (SAFE_URL.test(href)) links.push(`<link rel="modulepreload" href="${href}">`);
  // A page the server rendered shows before its code runs: its styles must apply from the first paint
  // (the app's loader finds the stylesheet already there and adds no second one).
  for (const href of route?.css ?? []) {
    if (SAFE_URL.test(href)) links.push(serverRendered ? `<link rel="stylesheet" href="${href}">` : `<link rel="preload" href="${href}" as="style">`);
  }
  return links.join('');
}
