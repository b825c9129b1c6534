import { usesRestrictedCalls } from './restricted-call';

/**
 * Whether passkeys can work on this page: the browser has WebAuthn, the page is on a domain (an IP
 * address such as http://127.0.0.1 can never be a relying party), and the host is not a restricted
 * one (their encrypted calls have no passkeys). False on the server.
 */
export function passkeysUsableHere(): boolean {
  return (
    typeof window !== 'undefined' &&
    typeof window.PublicKeyCredential === 'function' &&
    !/^(\d+\.){3}\d+$|^\[/.test(window.location.hostname) &&
    !usesRestrictedCalls()
  );
}
