import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'api',
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One process runs the files one after another without a fresh module graph each: the app,
    // its dependencies and PGlite's WebAssembly load once, not once per file (the suite on PGlite
    // took 324 s isolated, 214 s not, on one core). Each file still makes its own app and
    // database (helpers.ts createTestApp), and the files that change process.env put it back.
    isolate: false,
    globalSetup: ['test/global-setup.ts'],
  },
});
