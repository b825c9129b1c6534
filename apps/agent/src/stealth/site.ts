import http from 'node:http';

/**
 * The ordinary website a browser, a scanner or an active probe meets on the stealth port (the
 * core falls back to it for anything that is not one of our clients), and on plain HTTP. A small
 * studio's page: nothing in it, its headers or its errors names a VPN or this project.
 */
export const SITE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Alder &amp; Loam Ceramics</title>
<style>
body{margin:0;font:17px/1.6 Georgia,serif;color:#2b2622;background:#f7f3ee}
header,main,footer{max-width:44rem;margin:0 auto;padding:1.5rem}
h1{font-weight:normal;letter-spacing:.02em}
.note{color:#6b625a;font-size:.9em}
</style>
</head>
<body>
<header><h1>Alder &amp; Loam Ceramics</h1><p class="note">Hand-thrown stoneware from a two-person studio.</p></header>
<main>
<h2>Studio</h2>
<p>We make bowls, mugs and serving plates in small batches, glazed with ash and iron glazes we mix ourselves. Each firing takes about three weeks from wheel to kiln.</p>
<h2>Orders</h2>
<p>The spring collection is sold out. The next batch opens in the autumn; commissions for restaurants are taken by letter.</p>
<h2>Visits</h2>
<p>The workshop is open on the first Saturday of each month, 10:00&ndash;16:00.</p>
</main>
<footer class="note">&copy; Alder &amp; Loam</footer>
</body>
</html>
`;

const NOT_FOUND = `<html>
<head><title>404 Not Found</title></head>
<body>
<center><h1>404 Not Found</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

/** The site's handler: the page at /, 404 elsewhere (as a static host answers), GET and HEAD only. */
export function siteHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  const headers = { server: 'nginx', 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff' };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...headers, allow: 'GET, HEAD' });
    res.end();
    return;
  }
  const ok = path === '/' || path === '/index.html';
  const body = ok ? SITE_PAGE : NOT_FOUND;
  res.writeHead(ok ? 200 : 404, {
    ...headers,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'max-age=3600',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Serves the site on host:port; resolves once listening. */
export function serveSite(host: string, port: number): Promise<http.Server> {
  const server = http.createServer(siteHandler);
  // Probes keep connections open for nothing: short timeouts, as a busy static host has.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
