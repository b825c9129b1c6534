import { useMutation } from '@tanstack/react-query';
import { staffApi } from './client';
import type { StaffMe } from './types';

export interface StaffSignInBody {
  email: string;
  password: string;
  code: string;
}

/** POST staff/session {email, password, code}: the session cookie comes with the answer. A 403 means the account has no two-factor yet. */
export async function signIn(body: StaffSignInBody): Promise<StaffMe> {
  const res = await staffApi.post('session', { json: body, context: { silent: true, skipAuthHandling: true } }).json<{ data: StaffMe }>();
  return res.data;
}

export function useSignIn() {
  return useMutation({ mutationFn: signIn });
}
