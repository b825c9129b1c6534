/** Passkeys (WebAuthn, issue 23) as the composition, app.ts and the operator console see them. */
export { passkeysService, type PasskeysService, type RelyingParty, relyingPartyOf } from './service.js';
export { customerPasskeys, type CustomerPasskeys, passkeySecondFactor, PASSKEY_OPTIONS_PER_IP } from './customer.js';
export { passkeyRoutes } from './routes.js';
export { erasePasskeyData } from './repository.js';
