import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { expect, it } from 'vitest';
import { AGENT_VERSION } from './version.js';

it('reports the version of its package and the commit it runs (issue 22: every agent said 0.1.0)', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
    cwd: import.meta.dirname,
    encoding: 'utf8',
  }).trim();
  expect(AGENT_VERSION).toBe(`${pkg.version}+${commit}`);
  // What the API accepts (contract nodeReport: at most 64 characters).
  expect(AGENT_VERSION.length).toBeLessThanOrEqual(64);
});

it('the built agent carries its version and commit, and prints it with --version', { timeout: 120_000 }, async () => {
  // @ts-expect-error a plain .mjs script without types
  const { agentVersion, buildAgent } = (await import('../../../scripts/build-node.mjs')) as {
    agentVersion(): string;
    buildAgent(dist: string): Promise<void>;
  };
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-agent-build-'));
  const saved = process.env.WARREN_COMMIT;
  try {
    process.env.WARREN_COMMIT = 'abcdef0123456789';
    expect(agentVersion()).toMatch(/^\d+\.\d+\.\d+\+abcdef012345$/);
    delete process.env.WARREN_COMMIT;
    await buildAgent(dist);
    const printed = execFileSync(process.execPath, [path.join(dist, 'bin/warren-agent.mjs'), '--version'], {
      encoding: 'utf8',
    }).trim();
    expect(printed).toBe(AGENT_VERSION);
    expect(printed).toBe(agentVersion());
  } finally {
    if (saved === undefined) delete process.env.WARREN_COMMIT;
    else process.env.WARREN_COMMIT = saved;
    fs.rmSync(dist, { recursive: true, force: true });
  }
});
