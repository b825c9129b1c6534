import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/QueryState';
import type { StaffRole } from '../api/types';
import { STAFF_NS } from '../lib/i18n';
import { can, type StaffAbility } from '../lib/permissions';

/** A page only some roles may use: the others get a plain sentence, not a page of refusals. */
export function RoleGate({ role, ability, children }: { role: StaffRole; ability: StaffAbility; children: ReactNode }) {
  const { t } = useTranslation(STAFF_NS);
  if (!can(role, ability)) return <EmptyState message={t('common.adminOnly')} testId="admin-only" />;
  return <>{children}</>;
}
