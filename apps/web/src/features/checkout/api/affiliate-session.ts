import { api } from '../../../lib/api-client';

/** POST affiliate/session/create {url, referralID}: a visit through a referral link. Silent, best effort. */
export async function createAffiliateSession(body: { url: string; referralID: string }): Promise<void> {
  await api.post('affiliate/session/create', { json: body, context: { silent: true } });
}
