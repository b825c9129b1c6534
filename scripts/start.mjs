#!/usr/bin/env node
// `npm start`: build the web app when it is missing or older than its sources, then run the API,
// which applies migrations, seeds reference data and serves the web app and /api on one port.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const web = path.join(root, 'apps/web');
const builtIndex = path.join(web, 'dist/index.html');

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
const builtAt = fs.existsSync(builtIndex) ? fs.statSync(builtIndex).mtimeMs : 0;
if (!builtAt || Math.max(...sources.map(newestMtime), newestMtime(contract)) > builtAt) {
  console.log(builtAt ? 'Web app sources changed: rebuilding…' : 'Building the web app (first start)…');
  execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: web, stdio: 'inherit' });
}

const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/api/src/server.ts')], { stdio: 'inherit', env: process.env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
