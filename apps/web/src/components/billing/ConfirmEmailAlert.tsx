import { Alert, Button, Stack, Text, type AlertProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useResendVerification } from '../../lib/resend-verification';
import { IconMail } from '../icons';

/** "Confirm your email" for an unverified buyer (plans and thank-you pages): what to do, and Resend. */
export function ConfirmEmailAlert({
  text,
  textTestId,
  ...props
}: { text: string; textTestId?: string } & Omit<AlertProps, 'title' | 'children'>) {
  const { t } = useTranslation();
  const resend = useResendVerification();
  return (
    <Alert color="yellow" variant="light" icon={<IconMail size={20} />} title={t('plans.confirmTitle')} {...props}>
      <Stack gap="sm" align="flex-start">
        <Text size="sm" data-testid={textTestId}>
          {text}
        </Text>
        <Button size="sm" variant="white" color="dark" onClick={() => void resend.send()} loading={resend.isPending}>
          {t('plans.resend')}
        </Button>
      </Stack>
    </Alert>
  );
}
