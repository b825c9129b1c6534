// The auth forms' resolvers, built from the contract's schemas. Pages load this module
// lazily (lib/lazy-resolver.ts) so zod is not part of their first screen.
import { zodResolver } from '@hookform/resolvers/zod';
import { loginBody, registerBody, requestResetBody, resetPasswordBody } from '@warren/contract';

export const loginResolver = zodResolver(loginBody);
export const registerResolver = zodResolver(registerBody);
export const requestResetResolver = zodResolver(requestResetBody);
export const resetPasswordResolver = zodResolver(resetPasswordBody);
