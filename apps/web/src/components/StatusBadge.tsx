import { Badge } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { useTranslation } from 'react-i18next';
import type { AccountStatus } from '@warren/contract';

/** Spec section 4: Active shows a success style; anything else an error style. */
export function StatusBadge({ status }: { status: AccountStatus }) {
  const { t } = useTranslation();
  const ok = status === 'Active';
  return (
    <Badge color={ok ? 'teal' : 'red'} variant="light" radius="sm" data-status={ok ? 'success' : 'error'}>
      {t(`status.${status}`)}
    </Badge>
  );
}
