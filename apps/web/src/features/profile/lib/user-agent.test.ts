import { describe, expect, it } from 'vitest';
import { groupSecret, recoveryCodesFile } from './user-agent';

describe('recovery codes and secret', () => {
  it('writes one code a line', () => {
    const text = recoveryCodesFile('Warren VPN', 'a@example.com', ['aaaa-bbbb', 'cccc-dddd']);
    expect(text.split('\n')).toContain('aaaa-bbbb');
    expect(text).toMatch(/^Warren VPN recovery codes for a@example.com/);
  });
  it('groups the secret by four', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP');
    expect(groupSecret('ABCDE')).toBe('ABCD E');
  });
});
