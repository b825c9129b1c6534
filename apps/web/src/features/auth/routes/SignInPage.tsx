import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Button, Divider, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import '@mantine/core/styles/Divider.layer.css';
import '@mantine/core/styles/PasswordInput.layer.css';
import { useForm } from 'react-hook-form';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { STORAGE_KEYS, type LoginBody } from '@warren/contract';
import { AuthLayout } from '../components/AuthLayout';
import { lazyResolver } from '../../../lib/lazy-resolver';
import { useLogin } from '../api/login';
import { onetimeLogin } from '../api/onetime-login';
import { verifyUser } from '../../../lib/account-api';
import { loginAttribution } from '../../../lib/attribution';
import { errorBodyOf, errorStatus, errorText } from '../../../lib/http-error';
import { resendVerificationByLink } from '../api/resend-verification-by-link';
import { applyFieldErrors } from '../../../lib/forms';
import { pathAfterLogin } from '../../../lib/navigation';
import { snackbar } from '../../../lib/notify';
import { session } from '../../../lib/session';
import { storage } from '../../../lib/storage';
import { translateValidation } from '../../../lib/validation';
import { EmailInput } from '../../../components/EmailInput';
import { captchaErrorText, useCaptcha } from '../../../lib/captcha';
import { passkeysUsableHere } from '../../../lib/passkeys';
import { IconKey } from '../../../components/icons';
import { passkeyAssertion, passkeySignIn } from '../api/passkey-sign-in';
import type { AuthResult } from '@warren/contract';

/** The browser's refusal (cancelled, timed out, no passkey here) is the customer's choice, not an error to shout about. */
const isCeremonyRefusal = (err: unknown) =>
  ['NotAllowedError', 'AbortError', 'InvalidStateError'].includes((err as { name?: string } | null)?.name ?? '');

type VerifyState =
  | { kind: 'idle' }
  | { kind: 'pending' }
  | { kind: 'ok' }
  | { kind: 'already' }
  /** The link failed; its ids can still ask for a new mail ("Resend email"). */
  | { kind: 'failed'; link: { userId: number; token: string }; resend: 'idle' | 'pending' | 'sent' };

/** Links are single use: StrictMode's double effects must not spend them twice. */
const handledLinks = new Set<string>();

export function SignInPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [params, setParams] = useSearchParams();
  const [needsOtp, setNeedsOtp] = useState(false);
  const [verify, setVerify] = useState<VerifyState>({ kind: 'idle' });
  const [linkBusy, setLinkBusy] = useState(false);
  const otpRef = useRef<HTMLInputElement>(null);
  const loginMutation = useLogin();

  const form = useForm<LoginBody>({
    resolver: lazyResolver(() => import('../form-resolvers').then((m) => m.loginResolver)),
    defaultValues: { email: '', password: '', otp: undefined },
    mode: 'onTouched',
  });
  const { register, handleSubmit, setError, formState } = form;

  // Email verification link: /sign-in?userId=X&token=Y (the guard sends logged-in users to /plans).
  useEffect(() => {
    const userId = params.get('userId');
    const token = params.get('token');
    if (pathname !== '/sign-in' || !userId || !token) return;
    const key = `verify:${userId}:${token}`;
    if (handledLinks.has(key)) return;
    handledLinks.add(key);
    setVerify({ kind: 'pending' });
    const link = { userId: Number(userId), token };
    verifyUser(link)
      .then(() => setVerify({ kind: 'ok' }))
      // 409: the link was used before, so the account is verified already.
      .catch((err: unknown) =>
        setVerify(errorStatus(err) === 409 ? { kind: 'already' } : { kind: 'failed', link, resend: 'idle' }),
      )
      .finally(() => setParams({}, { replace: true }));
  }, [params, pathname, setParams]);

  // One-time login link: /auth?userID=X&token=Y.
  useEffect(() => {
    const userID = params.get('userID');
    const token = params.get('token');
    if (pathname !== '/auth' || !userID || !token) return;
    const key = `otl:${userID}:${token}`;
    if (handledLinks.has(key)) return;
    handledLinks.add(key);
    setLinkBusy(true);
    onetimeLogin({ userID: Number(userID), token })
      .then((result) => {
        session.signedIn(result);
        navigate('/dashboard', { replace: true });
      })
      .catch(() => setParams({}, { replace: true }))
      .finally(() => setLinkBusy(false));
  }, [params, pathname, navigate, setParams]);

  useEffect(() => {
    if (needsOtp) otpRef.current?.focus();
  }, [needsOtp]);

  const resend = async () => {
    if (verify.kind !== 'failed') return;
    setVerify({ ...verify, resend: 'pending' });
    try {
      await resendVerificationByLink(verify.link);
      setVerify({ ...verify, resend: 'sent' });
    } catch (err) {
      setVerify({ ...verify, resend: 'idle' });
      snackbar(errorText(errorBodyOf(err), t('auth.verify.resendFailed')));
    }
  };

  const captcha = useCaptcha();
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const [canPasskey, setCanPasskey] = useState(false);

  const finish = (result: AuthResult) => {
    session.signedIn(result);
    navigate(pathAfterLogin(result.user, storage.get(STORAGE_KEYS.firstPathname)), { replace: true });
  };

  /**
   * "Sign in with a passkey" (issue 23): no email, no password; the passkey is two factors by itself.
   * With `autofill` it is conditional UI: the browser lists the passkeys in the email field's
   * suggestions and nothing shows until one is picked; the button's request aborts that one.
   */
  const signInWithPasskey = async (autofill = false) => {
    if (!autofill) setPasskeyBusy(true);
    try {
      const response = await passkeyAssertion(autofill);
      setPasskeyBusy(true);
      finish(await passkeySignIn(response));
    } catch (err) {
      // The autofill request is the page's own, unasked for: it never shouts (a refused budget, an
      // aborted request, a browser without a passkey here). A passkey picked from it that fails
      // verification is shown, like the button's.
      if (autofill && !(errorBodyOf(err) && errorStatus(err) === 422)) return;
      if (isCeremonyRefusal(err)) {
        snackbar(t('auth.passkey.cancelled'));
        return;
      }
      snackbar(errorText(errorBodyOf(err), t('auth.passkey.failed')));
    } finally {
      setPasskeyBusy(false);
    }
  };

  // Conditional UI where the browser has it (Chrome, Safari, Edge): started once, on the sign-in page only.
  useEffect(() => {
    if (!passkeysUsableHere()) return;
    setCanPasskey(true);
    if (pathname !== '/sign-in') return;
    let live = true;
    void import('@simplewebauthn/browser').then(async (m) => {
      if (live && (await m.browserSupportsWebAuthnAutofill())) void signInWithPasskey(true);
    });
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per page
  }, [pathname]);

  /** The second step after the password with a passkey of the account instead of a code. */
  const secondStepWithPasskey = async () => {
    const values = form.getValues();
    setPasskeyBusy(true);
    try {
      const passkey = await passkeyAssertion(false, 'second-step');
      finish(
        await loginMutation.mutateAsync({
          ...values,
          otp: undefined,
          passkey: passkey as unknown as LoginBody['passkey'],
          ...loginAttribution(),
          'g-recaptcha-response': await captcha.take(),
        }),
      );
    } catch (err) {
      if (isCeremonyRefusal(err)) snackbar(t('auth.passkey.cancelled'));
      else {
        const body = errorBodyOf(err);
        if (body?.errors?.otp) setError('otp', { type: 'server', message: body.errors.otp.join(' ') });
        else snackbar(errorText(body, t('auth.passkey.failed')));
      }
    } finally {
      setPasskeyBusy(false);
    }
  };

  const onSubmit = handleSubmit(async (values) => {
    session.setLoading(true);
    try {
      // The spec's login payload: cid, cid4 (analytics client ids) and voluumID.
      const result = await loginMutation.mutateAsync({
        ...values,
        otp: values.otp || undefined,
        ...loginAttribution(),
        'g-recaptcha-response': await captcha.take(),
      });
      finish(result);
    } catch (err) {
      session.setLoading(false);
      const captchaText = captchaErrorText(err, t);
      if (captchaText) {
        snackbar(captchaText);
        return;
      }
      const body = errorBodyOf(err);
      if (body?.errors?.otp) {
        const wasAsked = needsOtp;
        setNeedsOtp(true);
        if (wasAsked) setError('otp', { type: 'server', message: body.errors.otp.join(' ') });
        return;
      }
      applyFieldErrors(body, setError, ['email', 'password']);
      snackbar(errorText(body, t('auth.loginFailed')));
    }
  });

  const fieldError = (name: keyof LoginBody) => translateValidation(formState.errors[name]?.message, t);

  return (
    <AuthLayout
      title={t('auth.signIn.title')}
      subtitle={t('auth.signIn.subtitle')}
      footer={{ prompt: t('auth.signIn.noAccount'), label: t('auth.signIn.createAccount'), to: '/sign-up' }}
    >
      {verify.kind === 'ok' && (
        <Alert color="teal" variant="light" mb="md" role="status" title={t('auth.verify.okTitle')}>
          {t('auth.verify.signInOk')}
        </Alert>
      )}
      {verify.kind === 'already' && (
        <Alert color="teal" variant="light" mb="md" role="status" data-testid="verify-already">
          {t('auth.verify.already')}
        </Alert>
      )}
      {verify.kind === 'failed' && (
        <Alert color="red" variant="light" mb="md" role="alert">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{verify.resend === 'sent' ? t('auth.verify.resent') : t('auth.verify.signInFailed')}</Text>
            {verify.resend !== 'sent' && (
              <Button
                size="compact-sm"
                variant="light"
                color="red"
                loading={verify.resend === 'pending'}
                onClick={() => void resend()}
              >
                {t('auth.verify.resend')}
              </Button>
            )}
          </Stack>
        </Alert>
      )}
      {verify.kind === 'pending' && (
        <Text size="sm" c="dimmed" mb="md" role="status">
          {t('auth.verify.pending')}
        </Text>
      )}
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <EmailInput
            error={fieldError('email')}
            disabled={linkBusy}
            // "webauthn": the browser may offer this site's passkeys here (conditional UI).
            autoComplete={canPasskey ? 'username webauthn' : 'email'}
            {...register('email')}
          />
          <div>
            <PasswordInput
              label={t('auth.fields.password')}
              autoComplete="current-password"
              error={fieldError('password')}
              disabled={linkBusy}
              visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
              {...register('password')}
            />
            <Anchor component={Link} to="/forgot-pass" size="sm" mt={8} display="inline-block">
              {t('auth.signIn.forgot')}
            </Anchor>
          </div>
          {needsOtp && (
            <TextInput
              label={t('auth.fields.otp')}
              description={t('auth.signIn.otpHint')}
              autoComplete="one-time-code"
              inputMode="numeric"
              error={fieldError('otp')}
              {...register('otp')}
              ref={(el) => {
                register('otp').ref(el);
                otpRef.current = el;
              }}
            />
          )}
          {needsOtp && canPasskey && (
            <Button
              variant="default"
              leftSection={<IconKey size={18} />}
              onClick={() => void secondStepWithPasskey()}
              loading={passkeyBusy}
              data-testid="otp-passkey"
            >
              {t('auth.passkey.instead')}
            </Button>
          )}
          {captcha.element}
          <Button type="submit" size="md" fullWidth loading={formState.isSubmitting || linkBusy} mt={4}>
            {t('auth.signIn.submit')}
          </Button>
        </Stack>
      </form>
      {canPasskey && !needsOtp && (
        <>
          <Divider label={t('auth.passkey.or')} labelPosition="center" my="md" />
          <Button
            variant="default"
            size="md"
            fullWidth
            leftSection={<IconKey size={18} />}
            onClick={() => void signInWithPasskey(false)}
            loading={passkeyBusy}
            disabled={linkBusy}
            data-testid="passkey-sign-in"
          >
            {t('auth.passkey.signIn')}
          </Button>
        </>
      )}
    </AuthLayout>
  );
}
