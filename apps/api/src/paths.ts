import path from 'node:path';

/**
 * The repository root, for default file locations (config/*.json, the built web app). This file
 * sits directly in src/, at the same depth as the bundles in dist/ (scripts/build-node.mjs), so
 * the same relative step is right for the sources and the production build. Modules deeper in
 * src/ import this instead of counting `..` from their own folder.
 */
export const repoRoot = path.resolve(import.meta.dirname, '../../..');
