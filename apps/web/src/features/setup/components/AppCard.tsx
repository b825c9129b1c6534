import { Badge, Button, Card, CopyButton, Group, Stack, Text, Tooltip } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Tooltip.layer.css';
import { useTranslation } from 'react-i18next';
import type { DownloadApp } from '@warren/contract';
import { formatBytes } from '../../../lib/bytes';
import classes from '../routes/setup.module.css';

/** One app of the catalogue: version, size, requirements, checksum and the download. */
export function AppCard({ app, highlight = false }: { app: DownloadApp; highlight?: boolean }) {
  const { t, i18n } = useTranslation();
  return (
    <Card
      withBorder
      padding="lg"
      className={app.className}
      data-testid={`app-${app.id}`}
      shadow={highlight ? 'sm' : undefined}
    >
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={700} size="lg">
            {app.name}
          </Text>
          {highlight && <Badge variant="light">{t('setup.yourDevice')}</Badge>}
        </Group>
        <Text size="sm" c="dimmed">
          {t('setup.version', { version: app.version })}
          {app.size > 0 && ` · ${formatBytes(app.size, i18n.language)}`}
          {app.minOs && ` · ${t('setup.minOs', { minOs: app.minOs })}`}
        </Text>
        {app.sha256 && (
          <Group gap={6} wrap="nowrap">
            <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
              {t('setup.checksum')}
            </Text>
            <Text size="xs" className={classes.mono} lineClamp={1} flex={1} miw={0} title={app.sha256}>
              {app.sha256}
            </Text>
            <CopyButton value={app.sha256}>
              {({ copied, copy }) => (
                <Tooltip label={copied ? t('setup.copied') : t('setup.copy')}>
                  <Button variant="subtle" size="compact-xs" onClick={copy}>
                    {copied ? t('setup.copied') : t('setup.copy')}
                  </Button>
                </Tooltip>
              )}
            </CopyButton>
          </Group>
        )}
        <Button
          component="a"
          href={app.url}
          target={app.kind === 'store' ? '_blank' : undefined}
          rel="noopener noreferrer"
          mt="xs"
        >
          {app.kind === 'store' ? t('setup.getIt') : t('setup.download')}
        </Button>
      </Stack>
    </Card>
  );
}
