import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Web features don't import each other: code flows lib → features → app (bulletproof-react).
const featuresDir = path.resolve(import.meta.dirname, 'apps/web/src/features');
const features = fs.existsSync(featuresDir) ? fs.readdirSync(featuresDir).filter((f) => fs.statSync(path.join(featuresDir, f)).isDirectory()) : [];
const featureBoundaries = features.map((feature) => ({
  files: [`apps/web/src/features/${feature}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: features.filter((f) => f !== feature).flatMap((f) => [`**/features/${f}`, `**/features/${f}/**`]),
            message: 'Features must not import each other; move shared code to src/lib or compose in src/app.',
          },
          { group: ['**/app/**', '**/app'], message: 'Features must not import the app layer.' },
        ],
      },
    ],
  },
}));

// API modules (apps/api/src/modules/<name>) reach each other only through what a module exports
// for others: its index.ts. Folders of one area share their insides: the accounts area (users and
// the profile settings) and the VPN area (nodes, locations, wireguard, openvpn-socks5, stealth: one plugin, nodes/index.ts, and the
// OpenVPN/SOCKS5 and stealth plugins beside it).
const modulesDir = path.resolve(import.meta.dirname, 'apps/api/src/modules');
const apiModules = fs.existsSync(modulesDir) ? fs.readdirSync(modulesDir).filter((m) => fs.statSync(path.join(modulesDir, m)).isDirectory()) : [];
const apiAreas = [['users', 'profile'], ['nodes', 'locations', 'wireguard', 'openvpn-socks5', 'stealth']];
const areaOf = (m) => apiAreas.find((a) => a.includes(m)) ?? [m];
const apiModuleBoundaries = apiModules.map((mod) => ({
  files: [`apps/api/src/modules/${mod}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: apiModules
          .filter((other) => !areaOf(mod).includes(other))
          .map((other) => ({
            group: [`../${other}/*`, `!../${other}/index.js`, `**/modules/${other}/*`, `!**/modules/${other}/index.js`],
            message: `Modules reach each other through index.ts: import from '../${other}/index.js' (export what you need there).`,
          })),
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['**/dist/**', '**/dist-ssr/**', '**/node_modules/**', '.tmp/**', 'data/**', 'e2e/test-results/**', 'e2e/playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', fetch: 'readonly', localStorage: 'readonly' } },
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
    files: ['apps/web/src/lib/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/features/**', '**/app/**'], message: 'lib is the bottom layer.' }] }],
    },
  },
  ...featureBoundaries,
  ...apiModuleBoundaries,
);
