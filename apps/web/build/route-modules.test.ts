import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROUTE_MODULES } from './route-modules';
import { routes } from '../src/app/router';

const webRoot = path.resolve(import.meta.dirname, '..');

/** Every path the router knows, with the source of the lazy loaders on the way to it. */
function routerPaths(list = routes, prefix = '', loaders: string[] = []): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of list) {
    const here = r.index ? prefix || '/' : r.path ? `${prefix.replace(/\/$/, '')}/${r.path}` : prefix;
    const chain = typeof r.lazy === 'function' ? [...loaders, r.lazy.toString()] : loaders;
    if (r.children) for (const [p, l] of routerPaths(r.children, here, chain)) out.set(p, l);
    else if (r.path !== '*') out.set(here || '/', chain);
  }
  return out;
}

it('every preloaded path is a route, and its modules are the ones the router loads for it', () => {
  const known = routerPaths();
  for (const [pathname, modules] of Object.entries(ROUTE_MODULES)) {
    const loaders = known.get(pathname);
    expect(loaders, `${pathname} is not a route`).toBeDefined();
    for (const m of modules) {
      expect(fs.existsSync(path.join(webRoot, m)), m).toBe(true);
      const name = path.basename(m, '.tsx');
      // The lazy loaders on the way to the path import the module.
      expect(loaders!.join('\n'), `${pathname} → ${name}`).toContain(`${name}`);
    }
  }
  // The main pages a visitor lands on all have hints.
  for (const p of ['/', '/sign-in', '/sign-up', '/dashboard', '/checkout', '/plans', '/setup/wg'])
    expect(ROUTE_MODULES[p], p).toBeDefined();
});
