import { Button, Card, Group, Select, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useForm, Controller } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, profileUpdateBody, type Language, type Profile } from '@warren/contract';
import type { z } from 'zod';
import { applyFieldErrors } from '../../../lib/forms';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { LANGUAGE_LABELS, changeLanguage } from '../../../lib/i18n';
import { snackbar } from '../../../lib/notify';
import { refreshUser } from '../../../lib/session';
import { translateValidation } from '../../../lib/validation';
import { useUpdateProfile } from '../api/update-profile';

type Values = z.input<typeof profileUpdateBody>;

/** Names, email (shown, not editable here) and the account language. */
export function PersonalCard({ profile }: { profile: Profile }) {
  const { t, i18n } = useTranslation();
  const update = useUpdateProfile();
  const { register, handleSubmit, control, setError, formState, reset } = useForm<
    Values,
    unknown,
    z.output<typeof profileUpdateBody>
  >({
    resolver: zodResolver(profileUpdateBody),
    defaultValues: { firstName: profile.firstName, secondName: profile.secondName, language: profile.language },
  });

  const onSubmit = handleSubmit(async (values) => {
    try {
      const saved = await update.mutateAsync(values);
      reset({ firstName: saved.firstName, secondName: saved.secondName, language: saved.language });
      snackbar(t('profile.saved'), { kind: 'success' });
      if (saved.language !== i18n.resolvedLanguage) await changeLanguage(saved.language);
      await refreshUser().catch(() => null);
    } catch (err) {
      const body = errorBodyOf(err);
      const rest = applyFieldErrors(body, setError, ['firstName', 'secondName', 'language']);
      if (rest.length || !body?.errors) snackbar(errorText(body, t('profile.saveFailed')));
    }
  });

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profile-personal">
      <Title order={2} fz={18} mb="md" id="profile-personal">
        {t('profile.personal')}
      </Title>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="md">
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label={t('profile.firstName')}
              autoComplete="given-name"
              maxLength={100}
              error={translateValidation(formState.errors.firstName?.message, t)}
              {...register('firstName')}
            />
            <TextInput
              label={t('profile.secondName')}
              autoComplete="family-name"
              maxLength={100}
              error={translateValidation(formState.errors.secondName?.message, t)}
              {...register('secondName')}
            />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label={t('profile.email')}
              value={profile.email}
              readOnly
              description={t('profile.emailHint')}
              data-testid="profile-email"
            />
            <Controller
              control={control}
              name="language"
              render={({ field }) => (
                <Select
                  label={t('profile.language')}
                  data={LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_LABELS[l] }))}
                  value={field.value ?? null}
                  onChange={(v) => v && field.onChange(v as Language)}
                  allowDeselect={false}
                  size="md"
                  description={t('profile.languageHint')}
                />
              )}
            />
          </SimpleGrid>
          <Group>
            <Button type="submit" loading={update.isPending} disabled={!formState.isDirty}>
              {t('profile.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
