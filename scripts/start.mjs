#!/usr/bin/env node
// `npm start`: build what is missing or older than its sources (the web app and its server
// render, the API), then run the compiled API (plain JavaScript, no dev tools), which applies
// migrations, seeds reference data and serves the web app and /api on one port.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBuilt } from './build-node.mjs';

const root = path.resolve(import.meta.dirname, '..');
const web = path.join(root, 'apps/web');
const builtIndex = path.join(web, 'dist/index.html');
const builtRender = path.join(web, 'dist-ssr/entry-server.js');

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target, { recursive: true })) {
    newest = Math.max(newest, fs.statSync(path.join(target, entry)).mtimeMs);
  }
  return newest;
}

const sources = ['src', 'public', 'build', 'index.html', 'vite.config.ts'].map((p) => path.join(web, p));
const contract = path.join(root, 'packages/contract/src');
const builtAt = Math.min(...[builtIndex, builtRender].map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
if (!builtAt || Math.max(...sources.map(newestMtime), newestMtime(contract)) > builtAt) {
  console.log(builtAt ? 'Web app sources changed: rebuilding…' : 'Building the web app (first start)…');
  const vite = path.join(root, 'node_modules/vite/bin/vite.js');
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: web, stdio: 'inherit' });
  // The signed-out pages' server render (the README's "How the web app loads").
  execFileSync(
    process.execPath,
    [vite, 'build', '--ssr', 'src/entry-server.tsx', '--outDir', 'dist-ssr', '--logLevel', 'warn'],
    { cwd: web, stdio: 'inherit' },
  );
}
await ensureBuilt('api', (line) => console.log(line));

const server = spawn(process.execPath, [path.join(root, 'apps/api/dist/server.js')], {
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
