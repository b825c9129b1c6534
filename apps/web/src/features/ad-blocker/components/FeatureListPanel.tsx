import { Fragment, Suspense, lazy, useState } from 'react';
import { ActionIcon, Card, Group, Switch, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Switch.layer.css';
import { useTranslation } from 'react-i18next';
import { snackbar } from '../../../lib/notify';
import { errorStatus } from '../../../lib/http-error';
import { IconCrown, IconInfo } from '../../../components/icons';
import { LazyTooltip } from '../../../components/LazyTooltip';
import { ErrorState, LoadingState } from '../../../components/QueryState';
import { useFeatures } from '../api/get-features';
import { useSetFeatureState } from '../api/set-feature-state';
import { featureRows, isAdBlocker, toggleOutcome, type FeatureRow } from '../lib/toggle';
import classes from './features.module.css';

// Only free users who try a premium switch see it: load it then, not with the dashboard.
const UpgradeDialog = lazy(() => import('./UpgradeDialog').then((m) => ({ default: m.UpgradeDialog })));
// The ad blocker's categories: below the first screen's switch, loaded after it.
const AdBlockCategories = lazy(() => import('./AdBlockCategories').then((m) => ({ default: m.AdBlockCategories })));

/** The feature list panel (spec section 2): one row per feature with its switch. */
export function FeatureListPanel() {
  const { t } = useTranslation();
  const features = useFeatures();
  const save = useSetFeatureState();
  /** The switch positions the user set, until the answer decides (spec section 4). */
  const [pending, setPending] = useState<Record<number, boolean>>({});
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  const [upgradeLoaded, setUpgradeLoaded] = useState(false);

  const rows = featureRows(features.data);
  const label = (f: FeatureRow) => (isAdBlocker(f) ? t('features.adBlocker') : f.name);

  const toggle = async (f: FeatureRow, requested: boolean) => {
    setPending((p) => ({ ...p, [f.id]: requested }));
    let answer: { result?: unknown } | { httpError: unknown; status: number | null };
    try {
      answer = await save.mutateAsync({ id: f.id, state: requested });
    } catch (err) {
      answer = { httpError: err, status: errorStatus(err) };
    }
    const outcome = toggleOutcome(requested, answer);
    setPending((p) => ({ ...p, [f.id]: outcome.state }));
    if (outcome.kind === 'saved') snackbar(t(`features.${outcome.note}`, { name: label(f) }), { kind: 'success' });
    else if (outcome.kind === 'notSaved') snackbar(t('features.errorToSave'));
    else if (outcome.kind === 'failed') snackbar(t('features.failed', { name: label(f) }));
    else {
      setUpgradeLoaded(true);
      setUpgradeOpen(true);
    }
  };

  return (
    <Card withBorder padding="lg" data-testid="feature-list">
      <Title order={2} fz={18} mb={4}>
        {t('features.title')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('features.intro')}
      </Text>
      {!features.data && features.isError ? (
        <ErrorState
          message={t('states.featuresFailed')}
          onRetry={() => void features.refetch()}
          retrying={features.isFetching}
        />
      ) : features.isPending ? (
        <LoadingState label={t('states.featuresLoading')} />
      ) : (
        rows.map((f) => {
          const checked = pending[f.id] ?? f.isEnabled;
          const tipId = `feature-tip-${f.id}`;
          return (
            <Fragment key={f.id}>
              <div className={classes.row} data-testid={`feature-${f.id}`}>
                <div className={classes.name}>
                  {f.premium && (
                    <LazyTooltip label={t('features.premium')} withArrow>
                      <span className={classes.crown} role="img" aria-label={t('features.premium')}>
                        <IconCrown size={18} />
                      </span>
                    </LazyTooltip>
                  )}
                  <Text fw={600} truncate>
                    {label(f)}
                  </Text>
                  {isAdBlocker(f) && (
                    <LazyTooltip
                      label={t('features.adBlockerTip')}
                      id={tipId}
                      multiline
                      w={240}
                      withArrow
                      events={{ hover: true, focus: true, touch: true }}
                    >
                      <ActionIcon
                        variant="subtle"
                        color="gray"
                        size="sm"
                        radius="xl"
                        aria-label={t('features.adBlockerTip')}
                        className={classes.info}
                      >
                        <IconInfo size={16} />
                      </ActionIcon>
                    </LazyTooltip>
                  )}
                </div>
                <Group gap={8} wrap="nowrap">
                  <Text
                    size="sm"
                    c={checked ? undefined : 'dimmed'}
                    className={checked ? classes.on : undefined}
                    aria-hidden
                  >
                    {checked ? t('features.on') : t('features.off')}
                  </Text>
                  <Switch
                    size="md"
                    checked={checked}
                    onChange={(e) => void toggle(f, e.currentTarget.checked)}
                    aria-label={label(f)}
                    data-testid={`feature-switch-${f.id}`}
                  />
                </Group>
              </div>
              {isAdBlocker(f) && !f.fallback && (
                <Suspense fallback={null}>
                  <AdBlockCategories
                    enabled={checked}
                    onUpgrade={() => {
                      setUpgradeLoaded(true);
                      setUpgradeOpen(true);
                    }}
                  />
                </Suspense>
              )}
            </Fragment>
          );
        })
      )}
      {upgradeLoaded && (
        <Suspense fallback={null}>
          <UpgradeDialog opened={upgradeOpen} onClose={() => setUpgradeOpen(false)} />
        </Suspense>
      )}
    </Card>
  );
}
