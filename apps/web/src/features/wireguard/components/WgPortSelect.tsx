import { Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { WgLocation } from '@warren/contract';

/**
 * The WireGuard port of the file (issue 23, as Mullvad's generator offers 51820, 53 and 443): the
 * location's own port (the default) and the extra ones every server of the location takes, for
 * networks that let only DNS or HTTPS ports out. A location that offers only its own port shows
 * no choice. `value` null is the default.
 */
export function WgPortSelect({
  location,
  value,
  onChange,
}: {
  location: Pick<WgLocation, 'ports'>;
  value: number | null;
  onChange: (port: number | null) => void;
}) {
  const { t } = useTranslation();
  const ports = location.ports ?? [];
  if (ports.length < 2) return null;
  const [own, ...extra] = ports as [number, ...number[]];
  const nameOf = (p: number) =>
    p === 443
      ? t('setup.wg.portHttps', { port: p })
      : p === 53
        ? t('setup.wg.portDns', { port: p })
        : t('setup.wg.portOther', { port: p });
  return (
    <Select
      label={t('setup.wg.port')}
      description={t('setup.wg.portHint')}
      data={[
        { value: 'default', label: t('setup.wg.portDefault', { port: own }) },
        ...extra.map((p) => ({ value: String(p), label: nameOf(p) })),
      ]}
      value={value !== null && extra.includes(value) ? String(value) : 'default'}
      onChange={(v) => onChange(v === null || v === 'default' ? null : Number(v))}
      allowDeselect={false}
      mt="xs"
      data-testid="wg-port"
    />
  );
}
