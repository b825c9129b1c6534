import { Card, SimpleGrid, Stack, Table, Text, ThemeIcon, Title } from '@mantine/core';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Table.layer.css';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useTranslation } from 'react-i18next';
import { CopyField, Stat } from '../../../components/CopyField';
import { ErrorState, LoadingState } from '../../../components/QueryState';
import { IconCard, IconGift, IconUsers } from '../../../components/icons';
import { useRewards } from '../api/get-rewards';

/** /rewards: invite friends with a friendID link; both get free days when the friend first pays. */
export function RewardsPage() {
  const { t, i18n } = useTranslation();
  const rewards = useRewards();

  if (rewards.isPending) return <LoadingState label={t('states.rewardsLoading')} />;
  if (rewards.isError)
    return (
      <ErrorState message={t('rewards.failed')} onRetry={() => void rewards.refetch()} retrying={rewards.isFetching} />
    );
  const r = rewards.data;
  const steps = [
    { icon: IconUsers, text: t('rewards.step1') },
    { icon: IconCard, text: t('rewards.step2') },
    { icon: IconGift, text: t('rewards.step3', { count: r.daysPerFriend }) },
  ];

  return (
    <Stack gap="lg" maw={960}>
      <Card withBorder padding="lg">
        <Title order={2} fz={20} mb={4}>
          {t('rewards.title', { count: r.daysPerFriend })}
        </Title>
        <Text c="dimmed" mb="md">
          {t('rewards.intro', { count: r.daysPerFriend })}
        </Text>
        <CopyField label={t('rewards.link')} value={r.link} testId="rewards-link" />
      </Card>

      <Card withBorder padding="lg">
        <Title order={3} fz={16} mb="md">
          {t('rewards.howTitle')}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
          {steps.map((s, i) => (
            <Stack key={i} gap={8}>
              <ThemeIcon variant="light" size={40} radius="md">
                <s.icon size={22} />
              </ThemeIcon>
              <Text size="sm">
                <b>{i + 1}.</b> {s.text}
              </Text>
            </Stack>
          ))}
        </SimpleGrid>
      </Card>

      <Card withBorder padding="lg">
        <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="lg">
          <Stat label={t('rewards.daysPerFriend')} value={r.daysPerFriend} testId="rewards-days-per-friend" />
          <Stat label={t('rewards.invited')} value={r.invited} testId="rewards-invited" />
          <Stat label={t('rewards.totalDays')} value={r.totalDays} testId="rewards-total-days" />
        </SimpleGrid>
      </Card>

      <Card withBorder padding="lg">
        <Title order={3} fz={16} mb="xs">
          {t('rewards.ledger')}
        </Title>
        {r.ledger.length === 0 ? (
          <Text c="dimmed" data-testid="rewards-ledger-empty">
            {t('rewards.ledgerEmpty')}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={420}>
            <Table striped verticalSpacing="sm" data-testid="rewards-ledger">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('rewards.date')}</Table.Th>
                  <Table.Th>{t('rewards.reason')}</Table.Th>
                  <Table.Th>{t('rewards.friend')}</Table.Th>
                  <Table.Th ta="right">{t('rewards.days')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {r.ledger.map((e) => (
                  <Table.Tr key={e.id}>
                    <Table.Td>{new Date(e.createdAt).toLocaleDateString(i18n.language)}</Table.Td>
                    <Table.Td>
                      {t(e.reason === 'invited-friend' ? 'rewards.reasonInvited' : 'rewards.reasonInvitedBy')}
                    </Table.Td>
                    <Table.Td>{e.friend}</Table.Td>
                    <Table.Td ta="right" fw={700}>
                      +{e.days}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
    </Stack>
  );
}
