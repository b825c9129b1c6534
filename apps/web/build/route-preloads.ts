import path from 'node:path';
import type { OutputBundle, OutputChunk } from 'rolldown';
import type { Plugin } from 'vite';

export interface RoutePreloads {
  [pathname: string]: { js: string[]; css: string[] };
}

/**
 * Emits route-preloads.json: for each path of `routes`, the files of its page modules that
 * the HTML does not already preload (chunks the entry imports statically are left out).
 */
export function routePreloads(routes: Record<string, string[]>): Plugin {
  let root = process.cwd();
  let base = '/';
  return {
    name: 'warren-route-preloads',
    // Client build only: the server's render bundle (dist-ssr) is read by Node, not downloaded.
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    configResolved(config) {
      root = config.root;
      base = config.base;
    },
    generateBundle(_options, bundle: OutputBundle) {
      const chunks = Object.values(bundle).filter((c): c is OutputChunk => c.type === 'chunk');
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const closure = (start: OutputChunk, into = new Set<string>()) => {
        if (into.has(start.fileName)) return into;
        into.add(start.fileName);
        for (const dep of start.imports) {
          const chunk = byFile.get(dep);
          if (chunk) closure(chunk, into);
        }
        return into;
      };
      const entry = chunks.find((c) => c.isEntry);
      if (!entry) return;
      const preloadedByHtml = closure(entry);
      // A page module is a chunk of its own, or part of a group's chunk (vite.config.ts codeSplitting).
      const rel = (id: string) => path.relative(root, id).split(path.sep).join('/');
      const chunkOf = new Map<string, OutputChunk>();
      for (const c of chunks) for (const id of c.moduleIds) if (!chunkOf.has(rel(id))) chunkOf.set(rel(id), c);
      for (const c of chunks) if (c.facadeModuleId) chunkOf.set(rel(c.facadeModuleId), c);
      const out: RoutePreloads = {};
      for (const [pathname, modules] of Object.entries(routes)) {
        const files = new Set<string>();
        for (const m of modules) {
          const chunk = chunkOf.get(m);
          if (!chunk) this.error(`route-preloads: ${pathname} names ${m}, which is in no chunk of the build`);
          closure(chunk, files);
        }
        const js = [...files].filter((f) => !preloadedByHtml.has(f));
        const css = [...new Set(js.flatMap((f) => [...(byFile.get(f)?.viteMetadata?.importedCss ?? [])]))];
        out[pathname] = { js: js.map((f) => base + f), css: css.map((f) => base + f) };
      }
      this.emitFile({ type: 'asset', fileName: 'route-preloads.json', source: JSON.stringify(out) });
    },
  };
}
