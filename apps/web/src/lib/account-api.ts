import {
  RESTRICTED_PATHS,
  isAuthResultShape,
  isUserShape,
  type AuthResult,
  type LoginBody,
  type RegisterBody,
  type User,
  type VerifyUserBody,
} from '@warren/contract';
import { ensureShape } from './answer-shape';
import { api } from './api-client';
import { verifyAttribution } from './attribution';
import { restrictedPost, usesRestrictedCalls } from './restricted-call';

/**
 * The account calls more than one feature makes (sign-in and sign-up pages, the checkout's account
 * step, the plans page): the fetchers live here, each feature keeps its own mutation hook.
 */

/**
 * POST users/login (users/restrictedLogin on restricted hosts). Silent: the sign-in page and the
 * checkout's inline sign-in show login failures themselves.
 */
export async function login(body: LoginBody): Promise<AuthResult> {
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: unknown }>('users/restrictedLogin', body, { silent: true });
    return ensureShape(res.data, isAuthResultShape, 'users/login');
  }
  const res = await api.post('users/login', { json: body, context: { silent: true } }).json<{ data: unknown }>();
  return ensureShape(res.data, isAuthResultShape, 'users/login');
}

/**
 * POST users/register (users/restrictedRegister on restricted hosts); `oneStep` marks the
 * checkout's account step (isOneStepPayment). Silent: sign-up failures get their own 2 s snackbar,
 * the checkout shows "already taken" as a sign-in prompt.
 */
export async function register(
  body: RegisterBody,
  { oneStep = false }: { oneStep?: boolean } = {},
): Promise<AuthResult> {
  const payload = oneStep ? { ...body, isOneStepPayment: true } : body;
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: unknown }>(
      'users/restrictedRegister',
      { ...payload, isRestrictedDomain: true },
      { silent: true },
    );
    return ensureShape(res.data, isAuthResultShape, 'users/register');
  }
  const res = await api.post('users/register', { json: payload, context: { silent: true } }).json<{ data: unknown }>();
  return ensureShape(res.data, isAuthResultShape, 'users/register');
}

/**
 * POST users/verifyUser: used by both the sign-in page and the plans page, so it lives here
 * rather than in one feature. Carries the spec's cid, clickID and cid4 (captured earlier) unless
 * the caller gives them. Silent: each page shows its own catalogue message.
 */
export async function verifyUser(body: VerifyUserBody): Promise<User> {
  const json = { ...verifyAttribution(), ...body };
  // A restricted host sends the link's token encrypted and gets the user (its email) back encrypted.
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: { user: unknown } }>(RESTRICTED_PATHS.verifyUser, json, { silent: true });
    return ensureShape(res.data?.user, isUserShape, 'users/verifyUser');
  }
  const res = await api
    .post('users/verifyUser', { json, context: { silent: true } })
    .json<{ data: { user: unknown } }>();
  return ensureShape(res.data.user, isUserShape, 'users/verifyUser');
}
