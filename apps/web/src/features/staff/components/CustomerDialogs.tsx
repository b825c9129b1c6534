import { useState } from 'react';
import { Alert, Checkbox, Text, TextInput, Textarea } from '@mantine/core';
import '@mantine/core/styles/Checkbox.layer.css';
import { useTranslation } from 'react-i18next';
import { STAFF_GRANT_DAYS_MAX, STAFF_REASON_MAX, type StaffPayment } from '@warren/contract';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { STAFF_NS } from '../lib/i18n';
import { ConfirmDialog } from '../../../components/ConfirmDialog';

/** The contract's shortest reason (staffReason): the dialog says so before the server does. */
const REASON_MIN = 3;

/** The refusal's own words (field messages or message), else a plain one. */
export function refusal(err: unknown, fallback: string): string | null {
  return err ? errorText(errorBodyOf(err), fallback) : null;
}

interface DialogProps {
  onClose: () => void;
  pending: boolean;
  error: unknown;
}

function reasonOk(reason: string, required: boolean) {
  const r = reason.trim();
  return r.length === 0 ? !required : r.length >= REASON_MIN;
}

function ReasonField({
  value,
  onChange,
  tried,
  required,
}: {
  value: string;
  onChange: (v: string) => void;
  tried: boolean;
  required: boolean;
}) {
  const { t } = useTranslation(STAFF_NS);
  return (
    <Textarea
      label={required ? t('dialogs.reason') : t('dialogs.reasonOptional')}
      description={t('dialogs.reasonHint')}
      required={required}
      autosize
      minRows={2}
      maxLength={STAFF_REASON_MAX}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={tried && !reasonOk(value, required) ? t('dialogs.reasonRequired', { min: REASON_MIN }) : null}
      data-autofocus
      data-testid="reason"
    />
  );
}

/** A customer action whose only input is the reason (required where it changes access, optional otherwise). */
export function ReasonDialog({
  title,
  body,
  confirmLabel,
  danger,
  reasonRequired,
  onSubmit,
  testId,
  ...p
}: DialogProps & {
  title: string;
  body: string;
  confirmLabel: string;
  danger?: boolean;
  reasonRequired: boolean;
  testId?: string;
  onSubmit: (v: { reason?: string }) => void;
}) {
  const { t } = useTranslation(STAFF_NS);
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  return (
    <ConfirmDialog
      cancelLabel={t('common.cancel')}
      opened
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={title}
      confirmLabel={confirmLabel}
      danger={danger}
      testId={testId}
      onConfirm={() => {
        setTried(true);
        if (reasonOk(reason, reasonRequired)) onSubmit(reason.trim() ? { reason: reason.trim() } : {});
      }}
    >
      <Text size="sm">{body}</Text>
      <ReasonField value={reason} onChange={setReason} tried={tried} required={reasonRequired} />
    </ConfirmDialog>
  );
}

export function GrantDaysDialog({
  onSubmit,
  ...p
}: DialogProps & { onSubmit: (v: { days: number; reason: string }) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [days, setDays] = useState('30');
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  const n = Number(days);
  const daysOk = days.trim() !== '' && Number.isInteger(n) && n >= 1 && n <= STAFF_GRANT_DAYS_MAX;
  return (
    <ConfirmDialog
      cancelLabel={t('common.cancel')}
      opened
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={t('dialogs.grantTitle')}
      confirmLabel={daysOk ? t('dialogs.grantConfirm', { count: n }) : t('actions.grant-days')}
      testId="grant-dialog"
      onConfirm={() => {
        setTried(true);
        if (daysOk && reasonOk(reason, true)) onSubmit({ days: n, reason: reason.trim() });
      }}
    >
      <TextInput
        label={t('dialogs.days')}
        type="number"
        inputMode="numeric"
        min={1}
        max={STAFF_GRANT_DAYS_MAX}
        required
        value={days}
        onChange={(e) => setDays(e.currentTarget.value)}
        error={tried && !daysOk ? t('dialogs.daysInvalid', { max: STAFF_GRANT_DAYS_MAX }) : null}
        data-testid="grant-days-input"
      />
      <ReasonField value={reason} onChange={setReason} tried={tried} required />
    </ConfirmDialog>
  );
}

export function RefundDialog({
  payment,
  amount,
  onSubmit,
  ...p
}: DialogProps & {
  payment: StaffPayment;
  amount: string;
  onSubmit: (v: { reason: string; outsideWindow?: boolean }) => void;
}) {
  const { t } = useTranslation(STAFF_NS);
  const [reason, setReason] = useState('');
  const [outside, setOutside] = useState(false);
  const [tried, setTried] = useState(false);
  const needsOutside = !payment.insideWindow;
  return (
    <ConfirmDialog
      cancelLabel={t('common.cancel')}
      opened
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={t('dialogs.refundTitle', { amount })}
      confirmLabel={t('dialogs.refundConfirm')}
      danger
      canSubmit={!needsOutside || outside}
      testId="refund-dialog"
      onConfirm={() => {
        setTried(true);
        if (reasonOk(reason, true)) onSubmit({ reason: reason.trim(), ...(outside ? { outsideWindow: true } : {}) });
      }}
    >
      <Text size="sm">{t('dialogs.refundBody')}</Text>
      {needsOutside && (
        <Alert color="orange" variant="light">
          {t('dialogs.refundOutsideNote')}
        </Alert>
      )}
      <ReasonField value={reason} onChange={setReason} tried={tried} required />
      <Checkbox
        label={t('dialogs.outsideWindow')}
        checked={outside}
        onChange={(e) => setOutside(e.currentTarget.checked)}
        data-testid="outside-window"
      />
    </ConfirmDialog>
  );
}

export function DeleteDialog({
  email,
  onSubmit,
  ...p
}: DialogProps & { email: string; onSubmit: (v: { reason: string }) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [reason, setReason] = useState('');
  const [typed, setTyped] = useState('');
  const [tried, setTried] = useState(false);
  const matches = typed.trim().toLowerCase() === email.toLowerCase();
  return (
    <ConfirmDialog
      cancelLabel={t('common.cancel')}
      opened
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={t('dialogs.deleteTitle')}
      confirmLabel={t('actions.delete')}
      danger
      canSubmit={matches}
      testId="delete-dialog"
      onConfirm={() => {
        setTried(true);
        if (reasonOk(reason, true) && matches) onSubmit({ reason: reason.trim() });
      }}
    >
      <Alert color="red" variant="light">
        {t('dialogs.deleteBody')}
      </Alert>
      <ReasonField value={reason} onChange={setReason} tried={tried} required />
      <TextInput
        label={t('dialogs.deleteType', { email })}
        value={typed}
        onChange={(e) => setTyped(e.currentTarget.value)}
        autoComplete="off"
        spellCheck={false}
        data-testid="delete-confirm"
      />
    </ConfirmDialog>
  );
}
