import { Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import { useForm } from 'react-hook-form';
import { useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PASSWORD_MIN, type RegisterBody } from '@warren/contract';
import { AuthLayout } from '../components/AuthLayout';
import { lazyResolver } from '../../../lib/lazy-resolver';
import { useRegister } from '../api/register';
import { collectAttribution } from '../../../lib/attribution';
import { applyFieldErrors } from '../../../lib/forms';
import { capitalizeFirst, errorBodyOf, errorText } from '../../../lib/http-error';
import { isLanguage } from '../../../lib/i18n';
import { pathAfterSignUp } from '../../../lib/navigation';
import { snackbar } from '../../../lib/notify';
import { session } from '../../../lib/session';
import { translateValidation } from '../../../lib/validation';
import { EmailInput } from '../../../components/EmailInput';
import { SNACKBAR_MS } from '@warren/contract';
import { captchaErrorText, useCaptcha } from '../../../lib/captcha';

const FIELDS = ['name', 'email', 'password', 'password_confirmation'] as const;

export function SignUpPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const registerMutation = useRegister();
  const promocode = params.get('promocode')?.trim() || undefined;

  const { register, handleSubmit, setError, formState } = useForm<RegisterBody>({
    resolver: lazyResolver(() => import('../form-resolvers').then((m) => m.registerResolver)),
    defaultValues: { name: '', email: '', password: '', password_confirmation: '' },
    mode: 'onTouched',
  });

  const captcha = useCaptcha();
  const onSubmit = handleSubmit(async (values) => {
    session.setLoading(true);
    try {
      const language = isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : undefined;
      const result = await registerMutation.mutateAsync({
        ...collectAttribution(),
        ...values,
        name: values.name || undefined,
        language,
        langCode: language,
        promocode,
        'g-recaptcha-response': await captcha.take(),
      });
      session.signedIn(result);
      navigate(pathAfterSignUp(promocode), { replace: true });
    } catch (err) {
      session.setLoading(false);
      const captchaText = captchaErrorText(err, t);
      if (captchaText) {
        snackbar(captchaText, { ms: SNACKBAR_MS.signUpError });
        return;
      }
      const body = errorBodyOf(err);
      applyFieldErrors(body, setError, FIELDS);
      snackbar(capitalizeFirst(errorText(body, t('auth.signUp.failed'))), { ms: SNACKBAR_MS.signUpError });
    }
  });

  const fieldError = (name: (typeof FIELDS)[number]) => translateValidation(formState.errors[name]?.message, t);

  return (
    <AuthLayout
      title={t('auth.signUp.title')}
      subtitle={t('auth.signUp.subtitle')}
      footer={{ prompt: t('auth.signUp.haveAccount'), label: t('auth.signUp.signIn'), to: '/sign-in' }}
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <TextInput
            label={t('auth.fields.name')}
            autoComplete="name"
            error={fieldError('name')}
            {...register('name')}
          />
          <EmailInput withAsterisk error={fieldError('email')} {...register('email')} />
          <PasswordInput
            label={t('auth.fields.password')}
            description={t('auth.signUp.passwordHint', { min: PASSWORD_MIN })}
            autoComplete="new-password"
            withAsterisk
            error={fieldError('password')}
            visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
            {...register('password')}
          />
          <PasswordInput
            label={t('auth.fields.passwordConfirmation')}
            autoComplete="new-password"
            withAsterisk
            error={fieldError('password_confirmation')}
            visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
            {...register('password_confirmation')}
          />
          {captcha.element}
          <Button type="submit" size="md" fullWidth loading={formState.isSubmitting} mt={4}>
            {t('auth.signUp.submit')}
          </Button>
          <Text size="xs" c="dimmed" ta="center">
            {t('auth.signUp.terms')}
          </Text>
        </Stack>
      </form>
    </AuthLayout>
  );
}
