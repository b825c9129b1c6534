import { useEffect } from 'react';
import { Anchor, Button, Card, Group, List, Text, Title } from '@mantine/core';
import '@mantine/core/styles/List.layer.css';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { getBrand } from '../../../lib/brand';
import { session } from '../../../lib/session';
import { STORAGE_KEYS, storage } from '../../../lib/storage';
import classes from './billing-pages.module.css';

/** /failed-payment: what happened, that nothing was charged, and the way back to the plans. */
export function FailedPaymentPage() {
  const { t } = useTranslation();
  useEffect(() => {
    session.setPaymentStatus('processed');
    storage.remove(STORAGE_KEYS.userSubscrHash);
    storage.remove(STORAGE_KEYS.userSubscrHashTime);
  }, []);
  return (
    <div className={classes.wrap}>
      <Card withBorder shadow="sm" radius="lg" padding={0}>
        <div className={classes.hero}>
          <span className={classes.iconFail} aria-hidden="true">
            <svg
              width="36"
              height="36"
              viewBox="0 0 24 24"
              fill="none"
              stroke="currentColor"
              strokeWidth="2.4"
              strokeLinecap="round"
            >
              <path d="M7 7l10 10M17 7L7 17" />
            </svg>
          </span>
          <Title order={2} className={classes.title}>
            {t('payment.failed.title')}
          </Title>
          <Text c="dimmed" mt={6}>
            {t('payment.failed.text')}
          </Text>
          <div className={classes.reasons}>
            <Text size="sm" fw={600} mb={6}>
              {t('payment.failed.reasonsTitle')}
            </Text>
            <List size="sm" spacing={4} c="dimmed">
              <List.Item>{t('payment.failed.reasonBank')}</List.Item>
              <List.Item>{t('payment.failed.reasonFunds')}</List.Item>
              <List.Item>{t('payment.failed.reasonClosed')}</List.Item>
            </List>
          </div>
          <Group justify="center" gap="sm" className={classes.actions}>
            <Button component={Link} to="/plans" size="md" data-testid="try-again">
              {t('payment.failed.tryAgain')}
            </Button>
            <Button
              component="a"
              href={getBrand().helpCenterUrl}
              target="_blank"
              rel="noopener noreferrer"
              size="md"
              variant="default"
            >
              {t('shell.contactUs')}
            </Button>
          </Group>
          <Text size="xs" c="dimmed" mt="lg">
            {t('payment.failed.noCharge')}{' '}
            <Anchor component={Link} to="/dashboard" size="xs">
              {t('payment.thankYou.dashboard')}
            </Anchor>
          </Text>
        </div>
      </Card>
    </div>
  );
}
