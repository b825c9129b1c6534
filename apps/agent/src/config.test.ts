import { describe, expect, it } from 'vitest';
import { AgentConfigError, takeEnvFile } from './config.js';

describe('--env-file', () => {
  it('loads the named file and leaves the other arguments', () => {
    const loaded: string[] = [];
    expect(
      takeEnvFile(
        ['--interface', 'wg1', '--env-file', '/etc/warren/agent.env', '--env-file=/x.env', '--wait', '5'],
        (f) => loaded.push(f),
      ),
    ).toEqual(['--interface', 'wg1', '--wait', '5']);
    expect(loaded).toEqual(['/etc/warren/agent.env', '/x.env']);
  });

  it('an unreadable or missing path is a configuration error', () => {
    expect(() => takeEnvFile(['--env-file'], () => undefined)).toThrow(AgentConfigError);
    expect(() => takeEnvFile(['--env-file', '/nope'], (f) => process.loadEnvFile(f))).toThrow(
      /cannot read --env-file \/nope \(ENOENT\)/,
    );
  });
});
