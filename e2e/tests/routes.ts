import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import type { RouteObject } from 'react-router';

/**
 * Every page of the web app, read from its router (apps/web/src/app/router.tsx) rather than a
 * copied list, so a page added there is audited without touching the tests. Vite's SSR loader
 * runs the router module in Node (it imports TSX and stylesheets the browser build would).
 */
export interface AppPage {
  /** A concrete path: parameters filled with an example, e.g. /plans/1-year. */
  path: string;
  /** Under the logged-in shell (needs a user), or a page of its own (signed-out, checkout, iOS). */
  signedIn: boolean;
  /** The route's title key: routes sharing one show the same page (the checkout variants, /, /sign-in and /auth). */
  titleKey: string | undefined;
}

/** Example values for route parameters; a parameter without one fails loudly below. */
const PARAMS: Record<string, string> = { selectedPlan: '1-year' };

const webRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/web');

function walk(routes: RouteObject[], base: string, signedIn: boolean, out: AppPage[]): AppPage[] {
  for (const r of routes) {
    // The operator console is no customer page: e2e/tests/staff.spec.ts audits it with a staff session.
    if ((r.handle as { staff?: boolean } | undefined)?.staff) continue;
    const own = r.index ? '' : (r.path ?? '');
    const full = own ? `${base.replace(/\/$/, '')}/${own}` : base;
    // The shell is the one pathless layout with children below the root.
    const shell = signedIn || (!r.path && !r.index && r.id !== 'root' && !!r.children);
    if (r.children) walk(r.children, full || '/', shell, out);
    else if (!own.includes('*')) {
      const filled = full.replace(/:(\w+)/g, (_, name: string) => {
        const value = PARAMS[name];
        if (!value) throw new Error(`routes.ts: no example value for :${name} in ${full}`);
        return value;
      });
      out.push({
        path: filled || '/',
        signedIn: shell,
        titleKey: (r.handle as { titleKey?: string } | undefined)?.titleKey,
      });
    }
  }
  return out;
}

export async function appPages(): Promise<AppPage[]> {
  const server = await createServer({
    root: webRoot,
    configFile: path.join(webRoot, 'vite.config.ts'),
    appType: 'custom',
    logLevel: 'error',
    server: { middlewareMode: true, hmr: false, ws: false },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  try {
    const mod = (await server.ssrLoadModule('/src/app/router.tsx')) as { routes: RouteObject[] };
    const pages = walk(mod.routes, '', false, []);
    // /, /sign-in and /auth are one page under three paths: audit it once.
    return pages.filter((p, i) => pages.findIndex((q) => q.path === p.path) === i);
  } finally {
    await server.close();
  }
}
