import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Progress,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Progress.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Switch.layer.css';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ServerListItem } from '@warren/contract';
import { IconCrown, IconGlobe, IconLock } from '../../../components/icons';
import { PlaceLabel } from '../../../components/PlaceLabel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/QueryState';
import { useServers } from '../api/servers';
import { matchesQuery } from '../lib/search';
import classes from './locations.module.css';

const loadColor = (load: number) => (load < 50 ? 'teal' : load < 80 ? 'yellow' : 'red');

/** `tiers`: the plan does not reach every location, so each says Free or Premium; a plan that reaches all shows no upsell badge. */
function LocationCard({ s, tiers }: { s: ServerListItem; tiers: boolean }) {
  const { t } = useTranslation();
  return (
    <Card
      withBorder
      padding="md"
      className={s.isBlur ? classes.blurred : undefined}
      data-testid="location"
      data-blur={s.isBlur ? '1' : '0'}
    >
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <PlaceLabel
          code={s.countryCode}
          title={s.city}
          subtitle={s.country}
          className={s.isBlur ? classes.blurText : undefined}
        />
        {!tiers ? null : s.premium ? (
          <Badge
            color="yellow"
            variant="light"
            leftSection={<IconCrown size={12} />}
            className={classes.badge}
            data-testid="tier-badge"
          >
            {t('setup.premium')}
          </Badge>
        ) : (
          <Badge color="teal" variant="light" className={classes.badge} data-testid="tier-badge">
            {t('setup.free')}
          </Badge>
        )}
      </Group>
      {s.unavailable ? (
        // Switched off or its servers retiring (issue 22): said, instead of the location vanishing.
        <Text size="xs" c="orange" mt="sm" data-testid="location-unavailable">
          {t(
            s.unavailable === 'off'
              ? 'setup.locationOff'
              : s.unavailable === 'full'
                ? 'setup.locationFull'
                : 'setup.locationRetiring',
          )}
        </Text>
      ) : s.isBlur ? (
        <Button component={Link} to="/plans" variant="subtle" size="xs" mt="sm" leftSection={<IconLock size={14} />}>
          {t('setup.unlock')}
        </Button>
      ) : s.load === null ? (
        <Text size="xs" c="dimmed" mt="sm">
          {t('setup.loadUnknown')}
        </Text>
      ) : (
        <Group gap="xs" mt="sm" wrap="nowrap">
          <Text size="xs" c="dimmed" w={60}>
            {t('setup.load')}
          </Text>
          <Progress value={s.load} color={loadColor(s.load)} flex={1} aria-label={`${t('setup.load')} ${s.load}%`} />
          <Text size="xs" w={36} ta="right">
            {s.load}%
          </Text>
        </Group>
      )}
    </Card>
  );
}

/**
 * /server-locations: searchable list with flags, load, a crown on premium and the blur for free users;
 * "Available on my plan" hides the locations the plan does not reach (the order stays).
 */
export function ServerLocationsPage() {
  const { t, i18n } = useTranslation();
  const servers = useServers(i18n.language);
  const data = servers.data;
  const [query, setQuery] = useState('');
  const [onPlan, setOnPlan] = useState(false);
  const locked = (data ?? []).filter((s) => s.isBlur).length;
  const list = useMemo(
    () => (data ?? []).filter((s) => !(onPlan && s.isBlur) && matchesQuery(query, s.city, s.country, s.countryCode)),
    [data, query, onPlan],
  );

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <div>
          <Title order={2} fz={24}>
            {t('titles.serverLocations')}
          </Title>
          <Text c="dimmed" maw={640}>
            {t('setup.locationsIntro')}
          </Text>
        </div>
        <Stack gap="xs" w={{ base: '100%', sm: 280 }}>
          <TextInput
            placeholder={t('setup.search')}
            aria-label={t('setup.search')}
            value={query}
            onChange={(e) => setQuery(e.currentTarget.value)}
            leftSection={<IconGlobe size={16} />}
          />
          {locked > 0 && (
            <Switch
              label={t('setup.availableOnPlan')}
              checked={onPlan}
              onChange={(e) => setOnPlan(e.currentTarget.checked)}
              data-testid="available-on-plan"
            />
          )}
        </Stack>
      </Group>
      {locked > 0 && (
        <Alert color="yellow" variant="light" icon={<IconCrown size={18} />} title={t('setup.unlock')}>
          <Group justify="space-between" wrap="wrap" gap="sm">
            <Text size="sm">{t('setup.unlockText', { count: locked })}</Text>
            <Button component={Link} to="/plans" size="xs" leftSection={<IconCrown size={14} />}>
              {t('setup.upgrade')}
            </Button>
          </Group>
        </Alert>
      )}
      {!data && servers.isError ? (
        <ErrorState
          message={t('states.locationsFailed')}
          onRetry={() => void servers.refetch()}
          retrying={servers.isFetching}
        />
      ) : !data ? (
        <LoadingState label={t('states.locationsLoading')} />
      ) : data.length === 0 ? (
        <EmptyState message={t('states.locationsEmpty')} />
      ) : list.length === 0 ? (
        <EmptyState message={t('setup.noResults')} />
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
          {list.map((s) => (
            <LocationCard key={s.id} s={s} tiers={locked > 0} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}
