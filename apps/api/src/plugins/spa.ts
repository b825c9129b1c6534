import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PublicBrand } from '@warren/contract';
import { firstVisitLanguage, pageHints, readRoutePreloads } from './page-hints.js';

const MARKER = '<!--warren-brand-->';

/**
 * Serves the built web app on the API's origin. index.html gets the request's brand inlined
 * as JSON (no extra round trip). Returns the renderer: the app's not-found handler answers
 * every unknown non-API GET with it, and the client router decides.
 */
export async function registerSpa(
  app: FastifyInstance,
  distDir: string,
  brandOf: (r: FastifyRequest) => PublicBrand,
): Promise<((request: FastifyRequest) => string) | undefined> {
  const indexFile = path.join(distDir, 'index.html');
  if (!fs.existsSync(indexFile)) {
    app.log.warn({ distDir }, 'web app not built; run `npm run build` (npm start does it)');
    return undefined;
  }
  const template = fs.readFileSync(indexFile, 'utf8');
  const preloads = readRoutePreloads(distDir);
  const render = (request: FastifyRequest) => {
    const json = JSON.stringify(brandOf(request)).replace(/</g, '\\u003c');
    const pathname = request.url.split('?')[0] ?? '/';
    const hints = pageHints(pathname, preloads, firstVisitLanguage(request.headers['accept-language']));
    // The hints go after the build's own tags: the app's entry chunk must not queue behind them.
    return template
      .replace(MARKER, `<script id="warren-brand" type="application/json">${json}</script>`)
      .replace('</head>', `${hints}</head>`);
  };

  await app.register(fastifyStatic, {
    root: distDir,
    index: false,
    wildcard: false,
    // The build writes .br and .gz beside each asset (apps/web/build/precompress.ts).
    preCompressed: true,
    cacheControl: false,
    // index.html is rendered per request; the preload map is read by the server only.
    allowedPath: (pathName) => pathName !== '/index.html' && pathName !== '/route-preloads.json',
    setHeaders(res, file) {
      // The answer depends on Accept-Encoding (preCompressed): caches must key on it.
      res.setHeader('vary', 'accept-encoding');
      // Vite fingerprints assets, so they can be cached forever; the rest revalidates.
      res.setHeader('cache-control', file.includes(`${path.sep}assets${path.sep}`) && /-[A-Za-z0-9_-]{8,}\./.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.get('/', { schema: { hide: true } }, async (request, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(render(request)));
  return render;
}
