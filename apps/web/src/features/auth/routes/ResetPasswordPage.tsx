import { Alert, Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PASSWORD_MIN, SNACKBAR_MS, type ResetPasswordBody, type resetPasswordBody } from '@warren/contract';
import type { z } from 'zod';
import { AuthLayout } from '../components/AuthLayout';
import { lazyResolver } from '../../../lib/lazy-resolver';
import { useResetPassword } from '../api/reset-password';
import { applyFieldErrors } from '../../../lib/forms';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { translateValidation } from '../../../lib/validation';

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
      footer={
        <Text size="sm">
          <Anchor component={Link} to="/sign-in" fw={600}>
            {t('auth.forgot.back')}
          </Anchor>
        </Text>
      }
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
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="md">
            <PasswordInput
              label={t('auth.fields.newPassword')}
              description={t('auth.signUp.passwordHint', { min: PASSWORD_MIN })}
              autoComplete="new-password"
              error={translateValidation(formState.errors.password?.message, t)}
              visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
              {...register('password')}
            />
            <PasswordInput
              label={t('auth.fields.passwordConfirmation')}
              autoComplete="new-password"
              error={translateValidation(formState.errors.password_confirmation?.message, t)}
              visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
              {...register('password_confirmation')}
            />
            <Button type="submit" size="md" fullWidth loading={formState.isSubmitting}>
              {t('auth.reset.submit')}
            </Button>
          </Stack>
        </form>
      )}
    </AuthLayout>
  );
}
