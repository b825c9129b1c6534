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
);
