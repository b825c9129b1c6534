import { afterEach, describe, expect, it, vi } from 'vitest';
import { passkeysUsableHere } from './passkeys';

describe('passkeysUsableHere', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('needs WebAuthn and a domain, never an IP address', () => {
    expect(passkeysUsableHere()).toBe(false); // jsdom has no PublicKeyCredential
    vi.stubGlobal('PublicKeyCredential', function PublicKeyCredential() {});
    expect(window.location.hostname).toBe('localhost');
    expect(passkeysUsableHere()).toBe(true);
  });
});
