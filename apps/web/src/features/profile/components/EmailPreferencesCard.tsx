import { useState } from 'react';
import { Card, Group, Switch, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Switch.layer.css';
import { useTranslation } from 'react-i18next';
import { snackbar } from '../../../lib/notify';
import { useEmailPreferences } from '../api/email-preferences';

/** News and offers by email on or off; receipts and security mail always arrive. */
export function EmailPreferencesCard({ marketing }: { marketing: boolean }) {
  const { t } = useTranslation();
  const save = useEmailPreferences();
  const [value, setValue] = useState<boolean | null>(null);
  const checked = value ?? marketing;

  const onChange = async (next: boolean) => {
    setValue(next);
    try {
      await save.mutateAsync({ marketing: next });
      snackbar(t(next ? 'profile.marketingOn' : 'profile.marketingOff'), { kind: 'success' });
    } catch {
      setValue(!next);
    }
  };

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profile-email-prefs">
      <Title order={2} fz={18} mb="md" id="profile-email-prefs">
        {t('profile.emailPrefs')}
      </Title>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div>
          <Text fw={600}>{t('profile.marketing')}</Text>
          <Text size="sm" c="dimmed">
            {t('profile.marketingHint')}
          </Text>
        </div>
        <Switch
          size="md"
          checked={checked}
          onChange={(e) => void onChange(e.currentTarget.checked)}
          aria-label={t('profile.marketing')}
          data-testid="marketing-switch"
        />
      </Group>
    </Card>
  );
}
