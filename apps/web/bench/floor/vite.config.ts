import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// Built by scripts/bench-web.mjs into a temporary directory (--outDir).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  logLevel: 'warn',
  build: { target: 'es2022', emptyOutDir: true, modulePreload: { polyfill: false } },
});
