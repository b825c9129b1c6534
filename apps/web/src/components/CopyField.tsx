import { Button, CopyButton, Group, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { IconCheck, IconCopy } from './icons';

/** A read-only value (a link, a secret) with a labelled Copy button. */
export function CopyField({
  label,
  value,
  testId,
  mono = false,
}: {
  label: string;
  value: string;
  testId?: string;
  mono?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Group gap="xs" align="flex-end" wrap="nowrap">
      <TextInput
        label={label}
        value={value}
        readOnly
        flex={1}
        miw={0}
        ff={mono ? 'monospace' : undefined}
        onFocus={(e) => e.currentTarget.select()}
        data-testid={testId}
      />
      <CopyButton value={value} timeout={1500}>
        {({ copied, copy }) => (
          <Button
            variant={copied ? 'light' : 'filled'}
            color={copied ? 'teal' : undefined}
            size="md"
            onClick={copy}
            leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            aria-label={`${t('shell.copy')}: ${label}`}
          >
            <span aria-live="polite">{copied ? t('shell.copied') : t('shell.copy')}</span>
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

/** A number with its caption, for stats rows. */
export function Stat({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <div>
      <div
        style={{
          fontSize: 12,
          fontWeight: 600,
          textTransform: 'uppercase',
          color: 'var(--mantine-color-dimmed)',
          letterSpacing: '0.02em',
        }}
      >
        {label}
      </div>
      <div style={{ fontSize: 26, fontWeight: 700, fontVariantNumeric: 'tabular-nums' }} data-testid={testId}>
        {value}
      </div>
    </div>
  );
}
