import { Alert, Anchor, Card, Group, Skeleton, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import '@mantine/core/styles/Skeleton.layer.css';
import { useTranslation } from 'react-i18next';
import { AppearanceCard } from '../../../components/AppearanceCard';
import { IconCard } from '../../../components/icons';
import { useProfile } from '../api/get-profile';
import { DeleteAccountCard } from '../components/DeleteAccountCard';
import { EmailPreferencesCard } from '../components/EmailPreferencesCard';
import { PasswordCard } from '../components/PasswordCard';
import { PersonalCard } from '../components/PersonalCard';
import { SessionsCard } from '../components/SessionsCard';
import { TwoFactorCard } from '../components/TwoFactorCard';
import { PasskeysCard } from '../components/PasskeysCard';
import { usesRestrictedCalls } from '../../../lib/restricted-call';

/** /profile: names, email, language, password, email preferences, two-factor sign-in, passkeys, sessions, deletion. */
export function ProfilePage() {
  const { t } = useTranslation();
  const profile = useProfile();
  if (profile.isPending) return <Skeleton h={420} radius="lg" />;
  if (profile.isError) {
    return (
      <Alert color="red" variant="light">
        {t('profile.loadFailed')}{' '}
        <Anchor component="button" onClick={() => void profile.refetch()}>
          {t('affiliate.retry')}
        </Anchor>
      </Alert>
    );
  }
  const p = profile.data;
  return (
    <Stack gap="lg" maw={880}>
      <PersonalCard key={`${p.firstName}|${p.secondName}|${p.language}`} profile={p} />
      <Card withBorder padding="lg" component="section">
        <Group gap="sm" wrap="nowrap">
          <IconCard size={20} />
          <Text>
            <Anchor component={Link} to="/subscription" fw={600} data-testid="profile-subscription-link">
              {t('subscription.profileLink')}
            </Anchor>
          </Text>
        </Group>
      </Card>
      <PasswordCard />
      <TwoFactorCard profile={p} />
      {/* Passkeys are the main product's (the restricted hosts' encrypted calls have none). */}
      {!usesRestrictedCalls() && <PasskeysCard />}
      <SessionsCard />
      <EmailPreferencesCard marketing={p.marketingEmails} />
      <AppearanceCard />
      <DeleteAccountCard />
    </Stack>
  );
}
