import { useState } from 'react';
import { Checkbox, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/Checkbox.layer.css';
import { useTranslation } from 'react-i18next';
import { AD_BLOCK_CATEGORIES, type AdBlockCategory, sortCategories } from '@warren/contract';
import { snackbar } from '../../../lib/notify';
import { errorStatus } from '../../../lib/http-error';
import { ErrorState, LoadingState } from '../../../components/QueryState';
import { useAdBlockSettings, useSetAdBlockCategories } from '../api/categories';
import classes from './features.module.css';

/**
 * What the ad blocker blocks (issue 23): one box per category, saved as it is ticked. The switch
 * above stays the on/off of the whole blocker; a customer who never chose gets ads and trackers.
 * A free user's tick opens the upgrade dialog, like the switch.
 */
export function AdBlockCategories({ enabled, onUpgrade }: { enabled: boolean; onUpgrade: () => void }) {
  const { t } = useTranslation();
  const settings = useAdBlockSettings();
  const save = useSetAdBlockCategories();
  /** The boxes as the user set them, until the answer decides. */
  const [pending, setPending] = useState<AdBlockCategory[] | null>(null);
  const chosen = pending ?? settings.data?.categories ?? [];

  const tick = async (c: AdBlockCategory, on: boolean) => {
    const next = sortCategories(on ? [...chosen, c] : chosen.filter((x) => x !== c));
    if (!next.length) return snackbar(t('features.categories.atLeastOne'), { kind: 'info' });
    setPending(next);
    try {
      await save.mutateAsync(next);
      snackbar(t('features.categories.saved'), { kind: 'success' });
    } catch (err) {
      const status = errorStatus(err);
      if (status === 402 || status === 403) onUpgrade();
      else snackbar(t('features.categories.failed'));
    }
    setPending(null);
  };

  if (!settings.data && settings.isError)
    return (
      <ErrorState
        message={t('features.categories.loadFailed')}
        onRetry={() => void settings.refetch()}
        retrying={settings.isFetching}
      />
    );
  if (settings.isPending) return <LoadingState label={t('features.categories.loading')} />;
  return (
    <fieldset className={classes.categories} data-testid="ad-block-categories">
      <legend className={classes.legend}>{t('features.categories.title')}</legend>
      <Text size="sm" c="dimmed" mb="xs" id="ad-block-categories-note">
        {enabled ? t('features.categories.note') : t('features.categories.noteOff')}
      </Text>
      <Stack gap="sm">
        {AD_BLOCK_CATEGORIES.map((c) => (
          <Checkbox
            key={c}
            checked={chosen.includes(c)}
            onChange={(e) => void tick(c, e.currentTarget.checked)}
            label={t(`features.categories.${c}.label`)}
            description={t(`features.categories.${c}.text`)}
            data-testid={`ad-block-category-${c}`}
          />
        ))}
      </Stack>
    </fieldset>
  );
}
