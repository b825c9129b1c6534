import { Alert, Button, Stack } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { NewPasswordForm } from '../../../components/NewPasswordFields';
import { SNACKBAR_MS, type ResetPasswordBody, type resetPasswordBody } from '@warren/contract';
import type { z } from 'zod';
import { AuthLayout } from '../components/AuthLayout';
import { lazyResolver } from '../../../lib/lazy-resolver';
import { useResetPassword } from '../api/reset-password';
import { applyFieldErrors } from '../../../lib/forms';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';

type FormValues = z.input<typeof resetPasswordBody>;

export function ResetPasswordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const userId = params.get('userId') ?? '';
  const token = params.get('token') ?? '';
  const mutation = useResetPassword();
  const { register, handleSubmit, setError, formState } = useForm<FormValues, unknown, ResetPasswordBody>({
    resolver: lazyResolver(() => import('../form-resolvers').then((m) => m.resetPasswordResolver)),
    defaultValues: { userId, token, password: '', password_confirmation: '' },
    mode: 'onTouched',
  });

  const onSubmit = handleSubmit(async (values) => {
    try {
      await mutation.mutateAsync(values);
      snackbar(t('auth.reset.done'), { kind: 'success', ms: SNACKBAR_MS.resetPasswordError });
      navigate('/sign-in', { replace: true });
    } catch (err) {
      const body = errorBodyOf(err);
      applyFieldErrors(body, setError, ['password', 'password_confirmation']);
      snackbar(errorText(body, t('auth.reset.failed')), { ms: SNACKBAR_MS.resetPasswordError });
    }
  });

  const linkOk = /^\d+$/.test(userId) && token.length > 0;

  return (
    <AuthLayout
      title={t('auth.reset.title')}
      subtitle={t('auth.reset.subtitle')}
      footer={{ label: t('auth.forgot.back'), to: '/sign-in' }}
    >
      {!linkOk ? (
        <Stack gap="md">
          <Alert color="red" variant="light" role="alert">
            {t('auth.reset.badLink')}
          </Alert>
          <Button component={Link} to="/forgot-pass" variant="light">
            {t('auth.reset.requestNew')}
          </Button>
        </Stack>
      ) : (
        <NewPasswordForm
          onSubmit={onSubmit}
          labels={{ password: t('auth.fields.newPassword'), confirmation: t('auth.fields.passwordConfirmation') }}
          register={register}
          errors={formState.errors}
        >
          <Button type="submit" size="md" fullWidth loading={formState.isSubmitting}>
            {t('auth.reset.submit')}
          </Button>
        </NewPasswordForm>
      )}
    </AuthLayout>
  );
}
