import { useState } from 'react';
import { Alert, Button, Card, Group, Stack, Text } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { NewPasswordForm } from '../../../components/NewPasswordFields';
import { setNewPasswordBody } from '@warren/contract';
import type { z } from 'zod';
import { applyFieldErrors } from '../../../lib/forms';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { useSendSetPasswordLink, useSetNewPassword } from '../api/set-new-password';

type Values = z.input<typeof setNewPasswordBody>;

/**
 * set-new-pass: a new password without the current one. The server wants the token of a link it
 * emailed (a session alone may be stolen), so the page first offers to send that link and shows
 * the form when opened from it (/set-new-pass?token=…).
 */
export function SetNewPassPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const save = useSetNewPassword();
  const send = useSendSetPasswordLink();
  const [linkInvalid, setLinkInvalid] = useState(false);
  const [sent, setSent] = useState(false);
  const [done, setDone] = useState(false);
  const { register, handleSubmit, setError, formState, reset } = useForm<
    Values,
    unknown,
    z.output<typeof setNewPasswordBody>
  >({
    resolver: zodResolver(setNewPasswordBody),
    defaultValues: { password: '', password_confirmation: '' },
    mode: 'onTouched',
  });

  const sendLink = async () => {
    try {
      await send.mutateAsync();
      setSent(true);
      setLinkInvalid(false);
    } catch (err) {
      snackbar(errorText(errorBodyOf(err), t('profile.saveFailed')));
    }
  };

  const onSubmit = handleSubmit(async (values) => {
    try {
      await save.mutateAsync({ ...values, token });
      reset();
      setDone(true);
      snackbar(t('profile.passwordUpdated'), { kind: 'success' });
    } catch (err) {
      const body = errorBodyOf(err);
      if (body?.errors?.token) {
        setLinkInvalid(true);
        return;
      }
      const rest = applyFieldErrors(body, setError, ['password', 'password_confirmation']);
      if (rest.length || !body?.errors) snackbar(errorText(body, t('profile.saveFailed')));
    }
  });

  const sendButton = (
    <Button
      variant={token ? 'light' : 'filled'}
      size={token ? 'compact-sm' : 'sm'}
      loading={send.isPending}
      onClick={() => void sendLink()}
    >
      {t('profile.setNew.sendLink')}
    </Button>
  );

  return (
    <Card withBorder padding="lg" maw={560}>
      <Text size="sm" c="dimmed" mb="md">
        {t(token ? 'profile.setNew.intro' : 'profile.setNew.introLink')}
      </Text>
      {sent && (
        <Alert color="teal" variant="light" mb="md" role="status" data-testid="set-new-pass-sent">
          {t('profile.setNew.linkSent')}
        </Alert>
      )}
      {linkInvalid && (
        <Alert color="yellow" variant="light" mb="md" role="alert" data-testid="set-new-pass-stale">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{t('profile.setNew.linkInvalid')}</Text>
            {sendButton}
          </Stack>
        </Alert>
      )}
      {done && (
        <Alert color="teal" variant="light" mb="md" role="status">
          {t('profile.passwordUpdated')}
        </Alert>
      )}
      {token ? (
        <NewPasswordForm
          onSubmit={onSubmit}
          labels={{ password: t('profile.newPassword'), confirmation: t('profile.confirmPassword') }}
          register={register}
          errors={formState.errors}
        >
          <Group>
            <Button type="submit" loading={save.isPending}>
              {t('profile.setNew.submit')}
            </Button>
          </Group>
        </NewPasswordForm>
      ) : (
        !sent && <Group>{sendButton}</Group>
      )}
    </Card>
  );
}
