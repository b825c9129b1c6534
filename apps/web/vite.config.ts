import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { precompress } from './build/precompress';
import { ROUTE_MODULES } from './build/route-modules';
import { routePreloads } from './build/route-preloads';

/**
 * Modules of these Mantine component folders (plus its core) go in one chunk. @mantine/hooks
 * stays out: a group takes every module that matches from anywhere in the app, and most hooks
 * serve only pages loaded later (drag, collapse, focus trap, clipboard...).
 */
const mantine = (components: string[], withCore = false) =>
  new RegExp(
    [
      ...(withCore ? ['node_modules/@mantine/core/esm/(core|utils)/'] : []),
      `node_modules/@mantine/core/esm/components/(${components.join('|')})/`,
      // Their stylesheets too: a stylesheet two chunks import otherwise becomes a chunk of its
      // own, a script file and a CSS file, two more requests for ~1 kB.
      `node_modules/@mantine/core/styles/(${components.join('|')})\\.layer\\.css`,
    ].join('|'),
  );
/** What every first screen shows: inputs, buttons, text, cards, alerts. */
const UI_CORE = mantine(
  [
    'Box',
    'Input',
    'InputBase',
    'TextInput',
    'PasswordInput',
    'NativeSelect',
    'Card',
    'Alert',
    'Group',
    'Stack',
    'Button',
    'Title',
    'Text',
    'Anchor',
    'ActionIcon',
    'CloseButton',
    'UnstyledButton',
    'Paper',
    'Loader',
    'Center',
    'Flex',
    'Transition',
    'Portal',
    'VisuallyHidden',
  ],
  true,
);
/** The app's own pieces of every first screen: the logo, the language select, the icons. */
const UI_CORE_APP = /\/src\/components\/(Logo|LanguageSwitcher|icons)\.(tsx|module\.css)/;
/** What the logged-in pages show besides: badges, icons, grids, lists, placeholders, switches. */
const UI_APP = mantine(['ThemeIcon', 'Badge', 'SimpleGrid', 'List', 'Skeleton', 'Switch', 'InlineInput', 'Overlay']);

/**
 * apps/web/src/lib/mantine-use-id.ts in place of @mantine/hooks' useId (why: see that file). A
 * client build that never met Mantine's import fails: a Mantine release that moves the file must
 * not bring the random ids back unnoticed (the server build leaves Mantine to Node, so not there).
 */
function mantineStableIds(): Plugin {
  const replacement = fileURLToPath(new URL('./src/lib/mantine-use-id.ts', import.meta.url));
  let clientBuild = false;
  let replaced = false;
  return {
    name: 'warren-mantine-stable-ids',
    enforce: 'pre',
    configResolved(config) {
      clientBuild = config.command === 'build' && !config.build.ssr;
    },
    resolveId(source, importer) {
      if (importer && /@mantine[\\/]hooks[\\/]esm[\\/]index\.mjs$/.test(importer) && source === './use-id/use-id.mjs') {
        replaced = true;
        return replacement;
      }
      return null;
    },
    buildEnd(error) {
      if (clientBuild && !error && !replaced)
        this.error(
          "mantine-stable-ids: @mantine/hooks no longer imports './use-id/use-id.mjs' from esm/index.mjs; point the plugin at its new place",
        );
    },
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // The server render bundle (dist-ssr, src/entry-server.tsx) needs no copy of public/.
  publicDir: isSsrBuild ? false : 'public',
  plugins: [mantineStableIds(), react(), routePreloads(ROUTE_MODULES), precompress()],
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://127.0.0.1:8080', changeOrigin: false } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            {
              // The UI pieces nearly every first screen shows, in one file instead of ~30 small
              // ones: over a mobile link each extra request costs a round trip. Components only
              // some pages use (Select, Menu, Table, Modal, Tooltip...) stay split.
              name: 'ui',
              test: (id) => UI_CORE.test(id) || UI_CORE_APP.test(id),
            },
            { name: 'ui-app', test: UI_APP },
          ],
        },
      },
    },
  },
}));
