import { Button, Group, PasswordInput, Stack } from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { NewPasswordFields } from '../../../components/NewPasswordFields';
import { SectionCard } from '../../../components/SectionCard';
import { changePasswordBody } from '@warren/contract';
import type { z } from 'zod';
import { applyFieldErrors } from '../../../lib/forms';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { translateValidation } from '../../../lib/validation';
import { useChangePassword } from '../api/change-password';

type Values = z.input<typeof changePasswordBody>;

/** Password change: the current one, the new one twice; every other session is signed out. */
export function PasswordCard() {
  const { t } = useTranslation();
  const change = useChangePassword();
  const { register, handleSubmit, setError, formState, reset } = useForm<
    Values,
    unknown,
    z.output<typeof changePasswordBody>
  >({
    resolver: zodResolver(changePasswordBody),
    defaultValues: { currentPassword: '', password: '', password_confirmation: '' },
    mode: 'onTouched',
  });
  const toggle = { 'aria-label': t('auth.fields.togglePassword') };
  const err = (m: string | undefined) =>
    m === 'Enter your current password.' ? t('profile.currentRequired') : translateValidation(m, t);

  const onSubmit = handleSubmit(async (values) => {
    try {
      await change.mutateAsync(values);
      reset();
      snackbar(t('profile.passwordUpdated'), { kind: 'success' });
    } catch (e) {
      const body = errorBodyOf(e);
      const rest = applyFieldErrors(body, setError, ['currentPassword', 'password', 'password_confirmation']);
      if (rest.length || !body?.errors) snackbar(errorText(body, t('profile.saveFailed')));
    }
  });

  return (
    <SectionCard id="profile-password" title={t('profile.password')} intro={t('profile.passwordIntro')}>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <PasswordInput
            label={t('profile.currentPassword')}
            autoComplete="current-password"
            error={err(formState.errors.currentPassword?.message)}
            visibilityToggleButtonProps={toggle}
            {...register('currentPassword')}
          />
          <NewPasswordFields
            side
            labels={{ password: t('profile.newPassword'), confirmation: t('profile.confirmPassword') }}
            register={register}
            errors={formState.errors}
          />
          <Group>
            <Button type="submit" loading={change.isPending}>
              {t('profile.changePassword')}
            </Button>
          </Group>
        </Stack>
      </form>
    </SectionCard>
  );
}
