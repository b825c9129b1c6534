import { Button, Card, Group, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/List.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../../lib/billing/format';
import { CopyField, Stat } from '../../../components/CopyField';
import { ErrorState, LoadingState } from '../../../components/QueryState';
import { useAffiliateStats } from '../api/get-stats';

/** /affiliate: the in-app affiliate programme (portal users are sent to their portal by the guard). */
export function AffiliatePage() {
  const { t, i18n } = useTranslation();
  const stats = useAffiliateStats();

  if (stats.isPending) return <LoadingState label={t('states.affiliateLoading')} />;
  if (stats.isError)
    return (
      <ErrorState message={t('affiliate.failed')} onRetry={() => void stats.refetch()} retrying={stats.isFetching} />
    );
  const s = stats.data;
  const earnings = s.earnings.filter((e) => e.amount > 0);

  return (
    <Stack gap="lg" maw={960}>
      <Card withBorder padding="lg">
        <Title order={2} fz={20} mb={4}>
          {t('affiliate.title')}
        </Title>
        <Text c="dimmed" mb="md">
          {t('affiliate.intro', { percent: s.commissionPercent })}
        </Text>
        <CopyField label={t('affiliate.link')} value={s.link} testId="affiliate-link" />
        <Text size="xs" c="dimmed" mt={6}>
          {t('affiliate.referralId', { id: s.referralId })}
        </Text>
      </Card>

      <Card withBorder padding="lg">
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="lg">
          <Stat label={t('affiliate.clicks')} value={s.clicks} testId="affiliate-clicks" />
          <Stat label={t('affiliate.signups')} value={s.signups} testId="affiliate-signups" />
          <Stat label={t('affiliate.paying')} value={s.payingReferrals} testId="affiliate-paying" />
          <Stat label={t('affiliate.commission')} value={`${s.commissionPercent}%`} />
        </SimpleGrid>
      </Card>

      <Card withBorder padding="lg">
        <Title order={3} fz={16} mb="xs">
          {t('affiliate.earnings')}
        </Title>
        {earnings.length === 0 ? (
          <Text c="dimmed" data-testid="affiliate-earnings">
            {t('affiliate.noEarnings')}
          </Text>
        ) : (
          <Group gap="xl" data-testid="affiliate-earnings">
            {earnings.map((e) => (
              <Text key={e.currency} fw={700} fz={22}>
                {formatMoney(e.amount, e.currency, i18n.language)}
              </Text>
            ))}
          </Group>
        )}
      </Card>

      <Card withBorder padding="lg">
        <Title order={3} fz={16} mb="xs">
          {t('affiliate.howTitle')}
        </Title>
        <List type="ordered" spacing={6}>
          <List.Item>{t('affiliate.how1')}</List.Item>
          <List.Item>{t('affiliate.how2')}</List.Item>
          <List.Item>{t('affiliate.how3', { percent: s.commissionPercent })}</List.Item>
        </List>
        {s.portalUrl && (
          <Button component="a" href={s.portalUrl} target="_blank" rel="noopener noreferrer" variant="light" mt="md">
            {t('affiliate.portal')}
          </Button>
        )}
      </Card>
    </Stack>
  );
}
