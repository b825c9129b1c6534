import { useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, Card, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { StaffSignInBody } from '@warren/contract';
import { errorBodyOf, errorStatus, errorText } from '../../../lib/http-error';
import { useSignIn } from '../api/sign-in';
import { passkeysUsableHere } from '../../../lib/passkeys';
import { staffPasskeyAssertion } from '../api/passkey-sign-in';
import { isSecondFactorCode } from '../lib/format';
import { STAFF_NS } from '../lib/i18n';
import classes from './staff.module.css';

/** Only a console page may be the way back after signing in (never another site, never a customer page). */
export function safeNext(next: string | null): string {
  return next && /^\/staff\/[A-Za-z0-9/_?=&%.-]*$/.test(next) && !next.startsWith('/staff/sign-in')
    ? next
    : '/staff/customers';
}

/** /staff/sign-in: email, password and the authenticator's 6-digit code, one of the account's recovery codes or a passkey of the account; two-factor is required for staff. */
export function StaffSignInPage() {
  const { t } = useTranslation(STAFF_NS);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const signIn = useSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [tried, setTried] = useState(false);
  const expired = params.get('expired') === '1';

  const [passkeyNote, setPasskeyNote] = useState<string | null>(null);
  const codeError = tried && !isSecondFactorCode(code) ? t('signIn.codeInvalid') : null;
  const canPasskey = passkeysUsableHere();

  /** A passkey of the account instead of the code (issue 23): the email and password first, then the browser's ceremony. */
  const withPasskey = async () => {
    setPasskeyNote(null);
    if (!email.trim() || !password) {
      setTried(true);
      setPasskeyNote(t('signIn.passkeyNeedsPassword'));
      return;
    }
    try {
      const passkey = await staffPasskeyAssertion();
      signIn.mutate(
        { email: email.trim(), password, passkey: passkey as unknown as StaffSignInBody['passkey'] },
        { onSuccess: () => navigate(safeNext(params.get('next')), { replace: true }) },
      );
    } catch {
      setPasskeyNote(t('signIn.passkeyCancelled'));
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!email.trim() || !password || !isSecondFactorCode(code)) return;
    signIn.mutate(
      { email: email.trim(), password, code },
      { onSuccess: () => navigate(safeNext(params.get('next')), { replace: true }) },
    );
  };

  const status = signIn.isError ? errorStatus(signIn.error) : null;
  const apiMessage = signIn.isError ? errorText(errorBodyOf(signIn.error), '') : '';

  return (
    <main id="main-content" className={classes.signIn} tabIndex={-1}>
      <Card withBorder radius="lg" padding="xl">
        <form onSubmit={submit} noValidate aria-labelledby="staff-sign-in-title">
          <Stack gap="md">
            <div>
              <Title order={1} fz={24} id="staff-sign-in-title">
                {t('signIn.title')}
              </Title>
              <Text size="sm" c="dimmed">
                {t('signIn.intro')}
              </Text>
            </div>
            {expired && !signIn.isError && (
              <Alert color="yellow" variant="light" role="status" data-testid="staff-expired">
                {t('signIn.expired')}
              </Alert>
            )}
            {status === 403 && (
              <Alert
                color="orange"
                variant="light"
                role="alert"
                title={t('signIn.twoFactorTitle')}
                data-testid="staff-2fa-required"
              >
                <Text size="sm">{apiMessage || t('signIn.twoFactorBody')}</Text>
                <Anchor component={Link} to="/profile" size="sm" fw={600}>
                  {t('signIn.twoFactorLink')}
                </Anchor>
              </Alert>
            )}
            {signIn.isError && status !== 403 && (
              <Alert color="red" variant="light" role="alert" data-testid="staff-sign-in-error">
                {status === 429
                  ? t('signIn.tooMany')
                  : status === 401 || status === 422
                    ? apiMessage || t('signIn.wrong')
                    : t('signIn.failed')}
              </Alert>
            )}
            <TextInput
              label={t('signIn.email')}
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={tried && !email.trim() ? t('signIn.required') : null}
            />
            <PasswordInput
              label={t('signIn.password')}
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={tried && !password ? t('signIn.required') : null}
            />
            <TextInput
              label={t('signIn.code')}
              description={t('signIn.codeHint')}
              autoComplete="one-time-code"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={32}
              required
              value={code}
              onChange={(e) => setCode(e.currentTarget.value.replace(/\s/g, ''))}
              error={codeError}
            />
            <Button type="submit" loading={signIn.isPending} fullWidth>
              {t('signIn.submit')}
            </Button>
            {canPasskey && (
              <Button variant="default" fullWidth onClick={() => void withPasskey()} data-testid="staff-passkey">
                {t('signIn.passkey')}
              </Button>
            )}
            {passkeyNote && (
              <Text size="sm" c="dimmed" role="status">
                {passkeyNote}
              </Text>
            )}
          </Stack>
        </form>
      </Card>
    </main>
  );
}
