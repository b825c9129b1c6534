import { useState } from 'react';
import { Alert, Button, Stack } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import type { RequestResetBody } from '@warren/contract';
import { AuthLayout } from '../components/AuthLayout';
import { lazyResolver } from '../../../lib/lazy-resolver';
import { useRequestReset } from '../api/request-reset';
import { applyFieldErrors } from '../../../lib/forms';
import { errorBodyOf, errorStatus } from '../../../lib/http-error';
import { translateValidation } from '../../../lib/validation';
import { EmailInput } from '../../../components/EmailInput';
import { captchaErrorText, useCaptcha } from '../../../lib/captcha';
import { snackbar } from '../../../lib/notify';

export function ForgotPassPage() {
  const { t } = useTranslation();
  const mutation = useRequestReset();
  const [sent, setSent] = useState<string | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<RequestResetBody>({
    resolver: lazyResolver(() => import('../form-resolvers').then((m) => m.requestResetResolver)),
    defaultValues: { email: '' },
    mode: 'onTouched',
  });

  const captcha = useCaptcha();
  const onSubmit = handleSubmit(async (values) => {
    try {
      const res = await mutation.mutateAsync({ ...values, 'g-recaptcha-response': await captcha.take() });
      setSent(res.message || t('auth.forgot.sent'));
    } catch (err) {
      const captchaText = captchaErrorText(err, t);
      if (captchaText) {
        snackbar(captchaText);
        return;
      }
      if (errorStatus(err) === 422) {
        const rest = applyFieldErrors(errorBodyOf(err), setError, ['email']);
        if (rest.length) setError('email', { type: 'server', message: rest.join(' ') });
      }
    }
  });

  return (
    <AuthLayout
      title={t('auth.forgot.title')}
      subtitle={t('auth.forgot.subtitle')}
      footer={{ label: t('auth.forgot.back'), to: '/sign-in' }}
    >
      {sent ? (
        <Alert color="teal" variant="light" role="status" title={t('auth.forgot.checkInbox')}>
          {sent}
        </Alert>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="md">
            <EmailInput error={translateValidation(formState.errors.email?.message, t)} {...register('email')} />
            {captcha.element}
            <Button type="submit" size="md" fullWidth loading={formState.isSubmitting}>
              {t('auth.forgot.submit')}
            </Button>
          </Stack>
        </form>
      )}
    </AuthLayout>
  );
}
