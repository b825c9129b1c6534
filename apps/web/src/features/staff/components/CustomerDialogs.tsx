import { useState } from 'react';
import { Alert, Checkbox, Text, TextInput, Textarea } from '@mantine/core';
import '@mantine/core/styles/Checkbox.layer.css';
import { useTranslation } from 'react-i18next';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import type { CustomerPayment } from '../api/types';
import { STAFF_NS } from '../lib/i18n';
import { ActionDialog } from './ActionDialog';

const REASON_MAX = 500;
export const GRANT_MAX_DAYS = 3650;

/** The refusal's own words (field messages or message), else a plain one. */
function refusal(err: unknown, fallback: string): string | null {
  return err ? errorText(errorBodyOf(err), fallback) : null;
}

interface DialogProps {
  opened: boolean;
  onClose: () => void;
  pending: boolean;
  error: unknown;
}

function ReasonField({ value, onChange, tried }: { value: string; onChange: (v: string) => void; tried: boolean }) {
  const { t } = useTranslation(STAFF_NS);
  return (
    <Textarea
      label={t('dialogs.reason')}
      description={t('dialogs.reasonHint')}
      required
      autosize
      minRows={2}
      maxLength={REASON_MAX}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={tried && !value.trim() ? t('dialogs.reasonRequired') : null}
      data-autofocus
    />
  );
}

export function GrantDaysDialog({ onSubmit, ...p }: DialogProps & { onSubmit: (v: { days: number; reason: string }) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [days, setDays] = useState('30');
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  const n = Number(days);
  const daysOk = Number.isInteger(n) && n >= 1 && n <= GRANT_MAX_DAYS;
  return (
    <ActionDialog
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={t('dialogs.grantTitle')}
      confirmLabel={t('dialogs.grantConfirm', { count: daysOk ? n : 0 })}
      testId="grant-dialog"
      onSubmit={() => {
        setTried(true);
        if (daysOk && reason.trim()) onSubmit({ days: n, reason: reason.trim() });
      }}
    >
      <TextInput
        label={t('dialogs.days')}
        type="number"
        inputMode="numeric"
        min={1}
        max={GRANT_MAX_DAYS}
        required
        value={days}
        onChange={(e) => setDays(e.currentTarget.value)}
        error={tried && !daysOk ? t('dialogs.daysInvalid', { max: GRANT_MAX_DAYS }) : null}
      />
      <ReasonField value={reason} onChange={setReason} tried={tried} />
    </ActionDialog>
  );
}

export function RefundDialog({ payment, amount, onSubmit, ...p }: DialogProps & { payment: CustomerPayment; amount: string; onSubmit: (v: { reason: string; outsideWindow: boolean }) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [reason, setReason] = useState('');
  const [outside, setOutside] = useState(false);
  const [tried, setTried] = useState(false);
  const needsOutside = !payment.insideWindow;
  return (
    <ActionDialog
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={t('dialogs.refundTitle', { amount })}
      confirmLabel={t('dialogs.refundConfirm')}
      danger
      canSubmit={!needsOutside || outside}
      testId="refund-dialog"
      onSubmit={() => {
        setTried(true);
        if (reason.trim()) onSubmit({ reason: reason.trim(), outsideWindow: outside });
      }}
    >
      <Text size="sm">{t('dialogs.refundBody')}</Text>
      {needsOutside && (
        <Alert color="orange" variant="light">
          {t('dialogs.refundOutsideNote')}
        </Alert>
      )}
      <ReasonField value={reason} onChange={setReason} tried={tried} />
      <Checkbox label={t('dialogs.outsideWindow')} checked={outside} onChange={(e) => setOutside(e.currentTarget.checked)} />
    </ActionDialog>
  );
}

export function DisableDialog({ disabled, onSubmit, ...p }: DialogProps & { disabled: boolean; onSubmit: (v: { reason: string }) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  return (
    <ActionDialog
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={disabled ? t('dialogs.enableTitle') : t('dialogs.disableTitle')}
      confirmLabel={disabled ? t('actions.enable') : t('actions.disable')}
      danger={!disabled}
      testId="disable-dialog"
      onSubmit={() => {
        setTried(true);
        if (reason.trim()) onSubmit({ reason: reason.trim() });
      }}
    >
      <Text size="sm">{disabled ? t('dialogs.enableBody') : t('dialogs.disableBody')}</Text>
      <ReasonField value={reason} onChange={setReason} tried={tried} />
    </ActionDialog>
  );
}

export function DeleteDialog({ email, onSubmit, ...p }: DialogProps & { email: string; onSubmit: (v: { reason: string }) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [reason, setReason] = useState('');
  const [typed, setTyped] = useState('');
  const [tried, setTried] = useState(false);
  const matches = typed.trim().toLowerCase() === email.toLowerCase();
  return (
    <ActionDialog
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={t('dialogs.deleteTitle')}
      confirmLabel={t('actions.delete')}
      danger
      canSubmit={matches}
      testId="delete-dialog"
      onSubmit={() => {
        setTried(true);
        if (reason.trim() && matches) onSubmit({ reason: reason.trim() });
      }}
    >
      <Alert color="red" variant="light">
        {t('dialogs.deleteBody')}
      </Alert>
      <ReasonField value={reason} onChange={setReason} tried={tried} />
      <TextInput label={t('dialogs.deleteType', { email })} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" spellCheck={false} />
    </ActionDialog>
  );
}
