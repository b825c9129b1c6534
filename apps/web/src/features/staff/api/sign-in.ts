import { useMutation } from '@tanstack/react-query';
import { envelope, staffMe, type StaffMe, type StaffSignInBody } from '@warren/contract';
import { rememberSession, staffApi } from './client';

/** POST staff/session {email, password, code}: the session cookie comes with the answer. A 403 means the account has a role but no two-factor yet. */
export async function signIn(body: StaffSignInBody): Promise<StaffMe> {
  const res = await staffApi.post('session', { json: body, context: { silent: true, skipAuthHandling: true } }).json();
  const me = envelope(staffMe).parse(res).data;
  rememberSession(true);
  return me;
}

export function useSignIn() {
  return useMutation({ mutationFn: signIn });
}
