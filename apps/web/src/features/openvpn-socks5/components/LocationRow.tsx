import { Badge } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { useTranslation } from 'react-i18next';
import type { ServicesLocation } from '@warren/contract';
import { IconCrown } from '../../../components/icons';
import { PlaceLabel } from '../../../components/PlaceLabel';

/** A location's flag chip, names and premium crown. */
export function LocationLabel({ loc }: { loc: ServicesLocation }) {
  const { t } = useTranslation();
  return (
    <PlaceLabel code={loc.countryCode} title={loc.country} subtitle={loc.city}>
      {loc.premium && (
        <Badge variant="light" color="yellow" leftSection={<IconCrown size={12} />} style={{ flex: 'none' }}>
          {t('setup.premium')}
        </Badge>
      )}
    </PlaceLabel>
  );
}
