import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import { precompress } from './precompress';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

it('writes brotli and gzip copies of compressible build files that decompress to the original, and skips the rest', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-precompress-'));
  dirs.push(root);
  const dist = path.join(root, 'dist');
  fs.mkdirSync(path.join(dist, 'assets/i18n'), { recursive: true });
  const js = 'export const greeting = "hello";\n'.repeat(200);
  fs.writeFileSync(path.join(dist, 'assets/app-AbCdEfGh.js'), js);
  fs.writeFileSync(
    path.join(dist, 'assets/i18n/en.json'),
    JSON.stringify({ words: Array(200).fill('translated text') }),
  );
  fs.writeFileSync(path.join(dist, 'assets/tiny-AbCdEfGh.css'), 'a{}');
  fs.writeFileSync(path.join(dist, 'assets/font-AbCdEfGh.woff2'), Buffer.alloc(4096, 7));

  const plugin = precompress();
  (plugin.configResolved as (c: unknown) => void)({ root, build: { outDir: 'dist' } });
  (plugin.closeBundle as () => void)();

  const file = path.join(dist, 'assets/app-AbCdEfGh.js');
  expect(zlib.brotliDecompressSync(fs.readFileSync(`${file}.br`)).toString()).toBe(js);
  expect(zlib.gunzipSync(fs.readFileSync(`${file}.gz`)).toString()).toBe(js);
  expect(fs.statSync(`${file}.br`).size).toBeLessThan(js.length / 10);
  expect(fs.existsSync(path.join(dist, 'assets/i18n/en.json.br'))).toBe(true);
  // Too small to be worth it, and already-compressed formats.
  expect(fs.existsSync(path.join(dist, 'assets/tiny-AbCdEfGh.css.br'))).toBe(false);
  expect(fs.existsSync(path.join(dist, 'assets/font-AbCdEfGh.woff2.br'))).toBe(false);
});
