import { useState } from 'react';
import { Alert, Button, Card, Group, Stack, Text } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { NewPasswordFields } from '../../../components/NewPasswordFields';
import { setNewPasswordBody } from '@warren/contract';
import type { z } from 'zod';
import { applyFieldErrors } from '../../../lib/forms';
import { errorBodyOf, errorStatus, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { session } from '../../../lib/session';
import { useSetNewPassword } from '../api/set-new-password';

type Values = z.input<typeof setNewPasswordBody>;

/** set-new-pass: a new password without the current one, for a session signed in within 15 minutes. */
export function SetNewPassPage() {
  const { t } = useTranslation();
  const save = useSetNewPassword();
  const [stale, setStale] = useState(false);
  const [done, setDone] = useState(false);
  const { register, handleSubmit, setError, formState, reset } = useForm<Values, unknown, z.output<typeof setNewPasswordBody>>({
    resolver: zodResolver(setNewPasswordBody),
    defaultValues: { password: '', password_confirmation: '' },
    mode: 'onTouched',
  });

  const onSubmit = handleSubmit(async (values) => {
    setStale(false);
    try {
      await save.mutateAsync(values);
      reset();
      setDone(true);
      snackbar(t('profile.passwordUpdated'), { kind: 'success' });
    } catch (err) {
      if (errorStatus(err) === 403) {
        setStale(true);
        return;
      }
      const body = errorBodyOf(err);
      const rest = applyFieldErrors(body, setError, ['password', 'password_confirmation']);
      if (rest.length || !body?.errors) snackbar(errorText(body, t('profile.saveFailed')));
    }
  });

  return (
    <Card withBorder padding="lg" maw={560}>
      <Text size="sm" c="dimmed" mb="md">
        {t('profile.setNew.intro')}
      </Text>
      {stale && (
        <Alert color="yellow" variant="light" mb="md" role="alert" data-testid="set-new-pass-stale">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{t('profile.setNew.signInAgain')}</Text>
            <Button size="compact-sm" variant="light" onClick={() => void session.signOut()}>
              {t('profile.setNew.signInButton')}
            </Button>
          </Stack>
        </Alert>
      )}
      {done && (
        <Alert color="teal" variant="light" mb="md" role="status">
          {t('profile.passwordUpdated')}
        </Alert>
      )}
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <NewPasswordFields
            labels={{ password: t('profile.newPassword'), confirmation: t('profile.confirmPassword') }}
            password={register('password')}
            confirmation={register('password_confirmation')}
            errors={{ password: formState.errors.password?.message, confirmation: formState.errors.password_confirmation?.message }}
          />
          <Group>
            <Button type="submit" loading={save.isPending}>
              {t('profile.setNew.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
