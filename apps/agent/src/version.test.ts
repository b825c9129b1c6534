import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { AGENT_VERSION } from './version.js';

it('reports the version of its package', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string };
  expect(AGENT_VERSION).toBe(pkg.version);
});
