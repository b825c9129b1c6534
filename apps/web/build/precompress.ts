import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const COMPRESSIBLE = /\.(js|mjs|css|json|svg|txt|map|webmanifest)$/;

function* files(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(p);
    else yield p;
  }
}

/**
 * Writes `.br` (quality 11) and `.gz` (level 9) beside every compressible file of the build,
 * once, at build time; the API's static handler serves them by Accept-Encoding
 * (@fastify/static `preCompressed`). Over a slow mobile link this is the difference between
 * ~600 kB and ~200 kB for a first visit. index.html is left alone: the API renders it per
 * request (brand inlined) and it is small.
 */
export function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'warren-precompress',
    // Client build only: the server's render bundle (dist-ssr) is read by Node, not downloaded.
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      for (const file of files(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const raw = fs.readFileSync(file);
        if (raw.length < 1024) continue;
        const br = zlib.brotliCompressSync(raw, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
        });
        const gz = zlib.gzipSync(raw, { level: 9 });
        // Only worth a file when it saves something.
        if (br.length < raw.length * 0.9) fs.writeFileSync(`${file}.br`, br);
        if (gz.length < raw.length * 0.9) fs.writeFileSync(`${file}.gz`, gz);
      }
    },
  };
}
