import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import reactHooks from 'eslint-plugin-react-hooks';

// The boundaries below are checked on the path an import resolves to (eslint-plugin-import-x's
// no-restricted-paths with the TypeScript resolver), so a relative path, a path through a
// package name or a tsconfig alias, a dynamic import() and an `export … from` are caught alike.
// apps/api/test/lint-boundaries.test.ts shows the rules failing on fixtures written each way.
const root = import.meta.dirname;
const dirs = (rel) => {
  const abs = path.resolve(root, rel);
  return fs.existsSync(abs) ? fs.readdirSync(abs).filter((d) => fs.statSync(path.join(abs, d)).isDirectory()) : [];
};

// Web: code flows lib → components → features → app (bulletproof-react); features never import
// each other, what two features share lives in lib/ (lib/billing: the plans, prices and payment
// calls the checkout pages and the dashboard's billing both use) or components/.
const web = 'apps/web/src';
const webFeatures = dirs(`${web}/features`);
const webZones = [
  ...webFeatures.map((feature) => ({
    target: `${web}/features/${feature}`,
    from: `${web}/features`,
    except: [`./${feature}`],
    message:
      'Features never import each other: move what both need to src/lib (or src/components), or compose them in src/app.',
  })),
  {
    target: `${web}/features`,
    from: `${web}/app`,
    message: 'Features must not import the app layer (src/app composes features, not the other way).',
  },
  {
    target: `${web}/components`,
    from: [`${web}/features`, `${web}/app`],
    message: 'components/ sits below features and app: pass what it needs as props.',
  },
  {
    target: `${web}/lib`,
    from: [`${web}/components`, `${web}/features`, `${web}/app`],
    message: 'lib is the bottom layer: it imports no component, feature or app code.',
  },
];

// API (apps/api/src): a module (modules/<name>) is reached from outside only through its index.ts.
// Folders of one area share their insides: the accounts area (users and the profile settings) and
// the VPN area (nodes, locations, wireguard, openvpn-socks5, stealth: one plugin, nodes/index.ts,
// and the OpenVPN/SOCKS5 and stealth plugins beside it).
const api = 'apps/api/src';
const apiModules = dirs(`${api}/modules`);
const apiAreas = [
  ['users', 'profile'],
  ['nodes', 'locations', 'wireguard', 'openvpn-socks5', 'stealth'],
];
const areaOf = (m) => apiAreas.find((a) => a.includes(m)) ?? [m];
const apiTop = [`${api}/app.ts`, `${api}/server.ts`, `${api}/cli`, `${api}/admin`];
const apiZones = [
  ...apiModules.map((mod) => ({
    // Globs, so that a file added later (a new top-level file, a new module) is covered too.
    target: [`${api}/*.ts`, `${api}/!(modules)/**`, `${api}/modules/!(${areaOf(mod).join('|')})/**`],
    from: `${api}/modules/${mod}`,
    except: ['./index.ts'],
    message: `Reach modules/${mod} through its index.ts (export what you need there).`,
  })),
  {
    target: [`${api}/lib`, `${api}/db`, `${api}/brands`, `${api}/paths.ts`, `${api}/types`],
    from: [`${api}/modules`, `${api}/plugins`, `${api}/payments`, `${api}/mail`, `${api}/composition.ts`, ...apiTop],
    message:
      'lib/, db/ and brands/ are the bottom layer: they import no module, plugin, provider, mail or composition code.',
  },
  {
    target: `${api}/config.ts`,
    from: [`${api}/plugins`, `${api}/payments`, `${api}/mail`, `${api}/composition.ts`, ...apiTop],
    message:
      'config.ts reads the environment and nothing else: it imports no plugin, provider, mail or composition code.',
  },
  {
    target: `${api}/mail`,
    from: [`${api}/plugins`, `${api}/payments`, `${api}/composition.ts`, ...apiTop],
    message: 'mail/ is infrastructure: the modules call it, not the other way.',
  },
  {
    target: `${api}/payments`,
    from: [`${api}/plugins`, `${api}/mail`, `${api}/composition.ts`, ...apiTop],
    message: 'payments/ (the providers) imports no plugin, mail, composition or app code.',
  },
  {
    target: `${api}/plugins`,
    from: [`${api}/payments`, `${api}/composition.ts`, ...apiTop],
    message: 'plugins/ imports no provider, composition or app code (app.ts registers plugins and routes).',
  },
  {
    target: `${api}/modules`,
    from: [`${api}/composition.ts`, ...apiTop],
    message: 'Modules are composed by composition.ts and app.ts, never the other way.',
  },
  {
    target: `${api}/composition.ts`,
    from: apiTop,
    message: 'composition.ts builds the services; the app, CLI and admin channel use it, not the other way.',
  },
];

// Agent (apps/agent/src): the installer (setup/) and the daemon share only the pure renderers;
// the renderers (wg/render.ts, openvpn/render.ts, stealth/render.ts, setup/render.ts) import no
// code that runs programs or touches the system.
const agent = 'apps/agent/src';
const agentRuntime = [
  `${agent}/index.ts`,
  `${agent}/agent.ts`,
  `${agent}/api-client.ts`,
  `${agent}/services`,
  `${agent}/socks`,
  `${agent}/dns`,
  `${agent}/wg/wg.ts`,
  `${agent}/stealth/runtime.ts`,
  `${agent}/stealth/core-api.ts`,
  `${agent}/stealth/site.ts`,
  `${agent}/metrics.ts`,
];
const agentZones = [
  // main.ts is the one entry of both: `warren-agent setup …` loads the installer, anything else the daemon.
  {
    target: `${agent}/setup`,
    from: [...agentRuntime, `${agent}/main.ts`],
    message: 'The installer (setup/) shares only pure renderers with the daemon.',
  },
  { target: agentRuntime, from: `${agent}/setup`, message: 'The daemon does not import the installer (setup/).' },
  {
    target: [
      `${agent}/wg/render.ts`,
      `${agent}/openvpn/render.ts`,
      `${agent}/stealth/render.ts`,
      `${agent}/setup/render.ts`,
    ],
    from: [...agentRuntime, `${agent}/main.ts`, `${agent}/setup/system.ts`, `${agent}/setup/main.ts`],
    message: 'Renderers are pure functions: they import no code that runs programs or touches the system.',
  },
];

// Between the workspaces: the three apps share only packages/contract.
const workspaceZones = [
  {
    target: 'packages/contract',
    from: ['apps', 'e2e'],
    message: 'The contract is shared by the apps and imports none of them.',
  },
  {
    target: 'apps/web',
    from: ['apps/api', 'apps/agent'],
    message: 'The web app shares only @warren/contract with the API and the agent.',
  },
  {
    target: 'apps/agent',
    from: ['apps/api', 'apps/web'],
    message: 'The agent shares only @warren/contract with the API and the web app.',
  },
  {
    target: `${api}`,
    from: ['apps/web', 'apps/agent'],
    message: 'The API shares only @warren/contract with the web app and the agent.',
  },
];

// (Its own resolver setting is replaced by resolver-next below.)
const { 'import-x/resolver': _legacyResolver, ...importXTypeScript } = importX.flatConfigs.typescript.settings;
const tsProjects = [
  'packages/contract/tsconfig.json',
  'apps/api/tsconfig.json',
  'apps/web/tsconfig.json',
  'apps/agent/tsconfig.json',
  'e2e/tsconfig.json',
  'e2e/tunnel/tsconfig.json',
].map((p) => path.resolve(root, p));

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/dist-ssr/**',
      '**/node_modules/**',
      '.tmp/**',
      'data/**',
      'e2e/test-results/**',
      'e2e/playwright-report/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        localStorage: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Input validation deliberately looks for control characters.
      'no-control-regex': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Plain scripts the browser runs as they are (no build step).
    files: ['apps/web/public/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { document: 'readonly', requestAnimationFrame: 'readonly' } },
    rules: { 'no-var': 'off' },
  },
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      // import-x's TypeScript settings (which files it parses to follow imports; without them no-cycle
      // reads no .ts file and finds nothing), with the resolver given the workspaces' tsconfigs.
      ...importXTypeScript,
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: tsProjects, noWarnOnMultipleProjects: true }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { basePath: root, zones: [...webZones, ...apiZones, ...agentZones, ...workspaceZones] },
      ],
    },
  },
  {
    // Runtime import cycles (type-only imports are erased and don't count).
    files: ['apps/*/src/**/*.{ts,tsx}', 'packages/contract/src/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
);
