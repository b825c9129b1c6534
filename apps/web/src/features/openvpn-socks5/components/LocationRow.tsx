import { Badge, Group, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { useTranslation } from 'react-i18next';
import type { ServicesLocation } from '@warren/contract';
import { IconCrown } from '../../../components/icons';
import classes from './openvpn-socks5.module.css';

/** The country as a code chip (flag emoji are not drawn everywhere). */
export function Flag({ code }: { code: string }) {
  return (
    <span className={classes.flag} aria-hidden>
      {code.toUpperCase()}
    </span>
  );
}

/** A location's flag chip, names and premium crown. */
export function LocationLabel({ loc }: { loc: ServicesLocation }) {
  const { t } = useTranslation();
  return (
    <Group gap="sm" wrap="nowrap" miw={0}>
      <Flag code={loc.countryCode} />
      <Stack gap={0} miw={0}>
        <Text fw={600} truncate>
          {loc.country}
        </Text>
        <Text size="sm" c="dimmed" truncate>
          {loc.city}
        </Text>
      </Stack>
      {loc.premium && (
        <Badge variant="light" color="yellow" leftSection={<IconCrown size={12} />} style={{ flex: 'none' }}>
          {t('setup.premium')}
        </Badge>
      )}
    </Group>
  );
}
