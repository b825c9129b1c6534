import { Anchor, Badge, Button, Card, Group, List, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/List.layer.css';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { configPageOf, type VpnClient } from '../../../components/vpn-clients';
import { IconDownload } from '../../../components/icons';

/**
 * Long labels (Russian store names) wrap on a phone instead of being cut. The button grows with
 * its label (height auto) and centres it: Mantine's inner box takes 100% of an auto height, which
 * left a one-line label at the top of a 36 px button and a two-line one against its bottom edge.
 */
const WRAP = {
  root: { display: 'inline-flex', alignItems: 'center', justifyContent: 'center' },
  inner: { height: 'auto' },
  label: { whiteSpace: 'normal', paddingBlock: 8, lineHeight: 1.3, textAlign: 'center' },
} as const;

/**
 * One official client for one system: its own download or store page, and the steps that take
 * a Warren configuration into it. `configAvailable` is false when the user has no page with the
 * configuration it imports (WireGuard without isWgSectionAvailable).
 */
export function ClientCard({
  client,
  os,
  configAvailable = true,
  headingOrder = 4,
}: {
  client: VpnClient;
  os: string;
  configAvailable?: boolean;
  headingOrder?: 3 | 4;
}) {
  const { t, i18n } = useTranslation();
  // A client's own pitfall, where it has one (wg-quick on Linux needs resolvconf for the DNS line).
  const note = i18n.exists(`clients.${client.key}.note`) ? t(`clients.${client.key}.note`) : null;
  return (
    <Card withBorder padding="md" data-testid={`client-${client.key}`}>
      <Stack gap="xs">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Title order={headingOrder} fz={16}>
            {client.name}
          </Title>
          <Badge variant="light" color={client.protocol === 'wireguard' ? 'blue' : 'gray'}>
            {client.protocol === 'wireguard' ? 'WireGuard' : 'OpenVPN'}
          </Badge>
        </Group>
        <List type="ordered" spacing={4} size="sm">
          {[1, 2, 3].map((n) => (
            <List.Item key={n}>{t(`clients.${client.key}.step${n}`, { os })}</List.Item>
          ))}
        </List>
        {note && (
          <Text size="sm" c="dimmed" data-testid="client-note">
            {note}
          </Text>
        )}
        <Group gap="xs" wrap="wrap">
          {client.url && (
            <Button
              component="a"
              href={client.url}
              target="_blank"
              rel="noopener noreferrer"
              size="sm"
              h="auto"
              mih={36}
              styles={WRAP}
              leftSection={<IconDownload size={16} />}
            >
              {t(`clients.link.${client.link}`, { name: client.name })}
            </Button>
          )}
          {configAvailable ? (
            <Button
              component={Link}
              to={configPageOf(client)}
              variant="light"
              size="sm"
              h="auto"
              mih={36}
              styles={WRAP}
            >
              {t(client.protocol === 'wireguard' ? 'clients.getWgConfig' : 'clients.getOvpnConfig')}
            </Button>
          ) : (
            <Text size="sm" c="dimmed">
              {t('clients.wgNotOnPlan')}{' '}
              <Anchor component={Link} to="/setup/configuration-files" size="sm">
                {t('clients.useOpenvpn')}
              </Anchor>
            </Text>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
