import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { hmac } from '../lib/secrets.js';
import type { PaymentProvider } from './provider.js';
import { type SandboxProvider, sandboxProvider } from './sandbox.js';
import { stripeProvider } from './stripe.js';
import { payssionProvider } from './payssion.js';
import { payssionV2Provider } from './payssion-v2.js';
import { cardlinkProvider } from './cardlink.js';

/**
 * The providers this deployment has configured; a provider without keys is simply absent.
 * Callers look providers up by names that come from requests (a webhook path, a body field):
 * the record has no prototype, so `constructor`, `toString` or `__proto__` find nothing.
 */
export function buildProviders(
  config: Config,
  db: Database,
  pageBaseUrl: () => string,
): { providers: Partial<Record<string, PaymentProvider>>; sandbox?: SandboxProvider } {
  const providers: Partial<Record<string, PaymentProvider>> = Object.create(null) as Partial<
    Record<string, PaymentProvider>
  >;
  let sandbox: SandboxProvider | undefined;
  if (config.billing.sandbox) {
    sandbox = sandboxProvider(db, hmac(config.appSecret, 'sandbox-webhooks'), pageBaseUrl);
    providers.sandbox = sandbox;
  }
  if (config.billing.stripe) providers.stripe = stripeProvider(config.billing.stripe);
  if (config.billing.payssion) {
    // One Payssion account serves both the v1 hosted payment and the v2 mandates.
    providers.payssion = payssionProvider(config.billing.payssion, db);
    providers.payssionv2 = payssionV2Provider(config.billing.payssion, db);
  }
  if (config.billing.cardlink) providers.cardlink = cardlinkProvider(config.billing.cardlink, db);
  return { providers, sandbox };
}
