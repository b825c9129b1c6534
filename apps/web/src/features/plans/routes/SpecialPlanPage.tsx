import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { SPECIAL_OFFER_SELLS_TARIFF_ID, specialOfferSecondsLeft } from '@warren/contract';
import { formatCountdown } from '../../../lib/billing/discount';
import { usePlanInfo } from '../../../lib/billing/plan-info';
import { useSession } from '../../../lib/session';
import { IconGift } from '../../../components/icons';
import { PlanCheckout } from '../components/PlanCheckout';

/** The year plan at the 'special-offer' price list (tariff 3); the API checks who qualifies. */

/** /special-plan: the exclusive new-member deal the shell's banner links to. */
export function SpecialPlanPage() {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  const info = usePlanInfo(user?.subscriptionData.tariffName);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(id);
  }, []);

  if (info.isPending) {
    return (
      <Group justify="center" py="xl">
        <Loader />
      </Group>
    );
  }
  const succeeded = info.data?.payments.filter((p) => p.status === 'succeeded') ?? [];
  const left =
    info.data && succeeded.length === info.data.payments.length ? specialOfferSecondsLeft(succeeded, now) : null;

  if (left === null) {
    return (
      <Card withBorder padding="xl" radius="lg" maw={640}>
        <Stack gap="sm" align="flex-start">
          <Title order={2} fz={22}>
            {t('plans.special.goneTitle')}
          </Title>
          <Text c="dimmed">{t('plans.special.goneText')}</Text>
          <Button component={Link} to="/plans">
            {t('plans.special.seePlans')}
          </Button>
        </Stack>
      </Card>
    );
  }

  return (
    <Stack gap="lg" maw={880}>
      <Card
        withBorder
        padding="xl"
        radius="lg"
        style={{ background: 'linear-gradient(120deg, #f0eeff 0%, #ffffff 55%, #e6fcf5 100%)' }}
      >
        <Stack gap="sm">
          <Group gap="sm">
            <IconGift size={26} color="var(--mantine-color-brand-6)" />
            <Badge variant="filled" radius="sm">
              {t('plans.special.badge')}
            </Badge>
            <Badge
              variant="light"
              color="dark"
              radius="sm"
              data-testid="special-plan-countdown"
              style={{ fontVariantNumeric: 'tabular-nums' }}
            >
              {t('plans.special.endsIn', { time: formatCountdown(left) })}
            </Badge>
          </Group>
          <Title order={2} fz={26}>
            {t('plans.special.title')}
          </Title>
          <Text c="dimmed">{t('plans.special.text', { months: 12 })}</Text>
        </Stack>
      </Card>
      {info.isError && <Alert color="red">{t('payment.pricesFailed')}</Alert>}
      <PlanCheckout tariffIds={[SPECIAL_OFFER_SELLS_TARIFF_ID]} priceList="special-offer" withPromo={false} offer />
    </Stack>
  );
}
