import { Badge } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { useTranslation } from 'react-i18next';
import type { ServicesLocation } from '@warren/contract';
import { IconCrown } from '../../../components/icons';
import { PlaceLabel } from '../../../components/PlaceLabel';
import { isFreeUser } from '../../../lib/plan';
import { useSession } from '../../../lib/session';

/** A location's flag chip, names and, for a free plan, the premium crown (a paying customer is not sold what they have). */
export function LocationLabel({ loc }: { loc: ServicesLocation }) {
  const { t } = useTranslation();
  const free = useSession((s) => isFreeUser(s.user));
  return (
    <PlaceLabel code={loc.countryCode} title={loc.country} subtitle={loc.city}>
      {loc.premium && free && (
        <Badge variant="light" color="yellow" leftSection={<IconCrown size={12} />} style={{ flex: 'none' }}>
          {t('setup.premium')}
        </Badge>
      )}
    </PlaceLabel>
  );
}
