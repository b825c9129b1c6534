import { Badge, Group, SimpleGrid, Stack, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useTranslation } from 'react-i18next';
import { clientsFor } from '../../../components/vpn-clients';
import { useSession } from '../../../lib/session';
import type { OperationSystem } from '../api/operation-systems';
import { ClientCard } from './ClientCard';

/** One system's official clients with their steps; WireGuard first for users with the WireGuard page. */
export function OsGuide({ os, mine, headingOrder = 3 }: { os: OperationSystem; mine: boolean; headingOrder?: 2 | 3 }) {
  const { t } = useTranslation();
  const wg = !!useSession((s) => s.user?.isWgSectionAvailable);
  const clients = clientsFor(os.platform, { wireguardFirst: wg });
  return (
    <Stack gap="sm" className={os.className} data-testid={`os-${os.id}`}>
      <Group gap="sm">
        <Title order={headingOrder} fz={18}>
          {os.name}
        </Title>
        {mine && <Badge variant="light">{t('setup.yourDevice')}</Badge>}
      </Group>
      <SimpleGrid cols={{ base: 1, sm: Math.min(clients.length, 2) }} spacing="md">
        {clients.map((c) => (
          <ClientCard
            key={c.key}
            client={c}
            os={os.name}
            configAvailable={c.protocol === 'openvpn' || wg}
            headingOrder={headingOrder === 2 ? 3 : 4}
          />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
