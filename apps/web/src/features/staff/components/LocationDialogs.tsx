import { useState } from 'react';
import { Checkbox, Group, NativeSelect, TextInput } from '@mantine/core';
import '@mantine/core/styles/Checkbox.layer.css';
import { useTranslation } from 'react-i18next';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import type { AddLocationBody } from '../api/add-location';
import type { AddNodeBody } from '../api/add-node';
import type { StaffLocation } from '../api/types';
import { STAFF_NS } from '../lib/i18n';
import { ActionDialog } from './ActionDialog';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const COUNTRY = /^[A-Za-z]{2}$/;
const HOST = /^[A-Za-z0-9.-]{1,253}$/;

interface DialogProps {
  onClose: () => void;
  pending: boolean;
  error: unknown;
}

export function AddLocationDialog({ onSubmit, ...p }: DialogProps & { onSubmit: (v: AddLocationBody) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [v, setV] = useState<AddLocationBody>({ slug: '', country: '', city: '', premium: false, visible: true });
  const [tried, setTried] = useState(false);
  const ok = { slug: SLUG.test(v.slug), country: COUNTRY.test(v.country), city: v.city.trim().length > 0 };
  return (
    <ActionDialog
      opened
      {...p}
      error={p.error ? errorText(errorBodyOf(p.error), t('dialogs.failed')) : null}
      title={t('nodes.addLocation')}
      confirmLabel={t('nodes.addLocationConfirm')}
      testId="add-location-dialog"
      onSubmit={() => {
        setTried(true);
        if (ok.slug && ok.country && ok.city) onSubmit({ ...v, country: v.country.toUpperCase(), city: v.city.trim() });
      }}
    >
      <TextInput label={t('nodes.slug')} description={t('nodes.slugHint')} required value={v.slug} onChange={(e) => setV({ ...v, slug: e.currentTarget.value })} error={tried && !ok.slug ? t('nodes.slugInvalid') : null} data-autofocus />
      <Group grow align="flex-start">
        <TextInput label={t('nodes.country')} description={t('nodes.countryHint')} required maxLength={2} value={v.country} onChange={(e) => setV({ ...v, country: e.currentTarget.value })} error={tried && !ok.country ? t('nodes.countryInvalid') : null} />
        <TextInput label={t('nodes.city')} required maxLength={80} value={v.city} onChange={(e) => setV({ ...v, city: e.currentTarget.value })} error={tried && !ok.city ? t('dialogs.required') : null} />
      </Group>
      <Checkbox label={t('nodes.premium')} checked={v.premium} onChange={(e) => setV({ ...v, premium: e.currentTarget.checked })} />
      <Checkbox label={t('nodes.visible')} checked={v.visible} onChange={(e) => setV({ ...v, visible: e.currentTarget.checked })} />
    </ActionDialog>
  );
}

export function AddNodeDialog({ locations, locationId, onSubmit, ...p }: DialogProps & { locations: StaffLocation[]; locationId: number | null; onSubmit: (v: AddNodeBody) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [loc, setLoc] = useState(String(locationId ?? locations[0]?.id ?? ''));
  const [name, setName] = useState('');
  const [host, setHost] = useState('');
  const [tried, setTried] = useState(false);
  const ok = { loc: loc !== '', name: SLUG.test(name), host: HOST.test(host) };
  return (
    <ActionDialog
      opened
      {...p}
      error={p.error ? errorText(errorBodyOf(p.error), t('dialogs.failed')) : null}
      title={t('nodes.addNode')}
      confirmLabel={t('nodes.addNodeConfirm')}
      testId="add-node-dialog"
      onSubmit={() => {
        setTried(true);
        if (ok.loc && ok.name && ok.host) onSubmit({ locationId: Number(loc), name, host });
      }}
    >
      <NativeSelect label={t('nodes.location')} value={loc} onChange={(e) => setLoc(e.currentTarget.value)} data={locations.map((l) => ({ value: String(l.id), label: `${l.city}, ${l.country} (${l.slug})` }))} />
      <TextInput label={t('nodes.nodeName')} description={t('nodes.nodeNameHint')} required value={name} onChange={(e) => setName(e.currentTarget.value)} error={tried && !ok.name ? t('nodes.slugInvalid') : null} data-autofocus />
      <TextInput label={t('nodes.host')} description={t('nodes.hostHint')} required value={host} onChange={(e) => setHost(e.currentTarget.value)} error={tried && !ok.host ? t('nodes.hostInvalid') : null} />
    </ActionDialog>
  );
}
