import { useState } from 'react';
import { Checkbox, Fieldset, Group, NativeSelect, SimpleGrid, TextInput } from '@mantine/core';
import '@mantine/core/styles/Checkbox.layer.css';
import '@mantine/core/styles/Fieldset.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useTranslation } from 'react-i18next';
import {
  LANGUAGES,
  STAFF_NODE_NAME_RE,
  STAFF_SLUG_RE,
  type StaffAddLocationBody,
  type StaffAddNodeBody,
  type StaffLocation,
} from '@warren/contract';
import { STAFF_NS } from '../lib/i18n';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { refusal } from './CustomerDialogs';

const HOST = /^[A-Za-z0-9.:-]{1,253}$/;
type Names = Record<(typeof LANGUAGES)[number], string>;
const noNames = (): Names => ({ en: '', ru: '', zh: '' });
const namesOk = (n: Names) => LANGUAGES.every((l) => n[l].trim().length > 0 && n[l].length <= 100);
const trimmed = (n: Names): Names => ({ en: n.en.trim(), ru: n.ru.trim(), zh: n.zh.trim() });

interface DialogProps {
  onClose: () => void;
  pending: boolean;
  error: unknown;
}

/** Names in the three languages customers read (the location list is shown in each). */
function NamesFieldset({
  legend,
  value,
  onChange,
  tried,
  testId,
}: {
  legend: string;
  value: Names;
  onChange: (v: Names) => void;
  tried: boolean;
  testId: string;
}) {
  const { t } = useTranslation(STAFF_NS);
  return (
    <Fieldset legend={legend} variant="unstyled">
      <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="xs">
        {LANGUAGES.map((l) => (
          <TextInput
            key={l}
            label={t(`nodes.inLanguage.${l}`)}
            required
            maxLength={100}
            value={value[l]}
            onChange={(e) => onChange({ ...value, [l]: e.currentTarget.value })}
            error={tried && !value[l].trim() ? t('dialogs.required') : null}
            data-testid={`${testId}-${l}`}
          />
        ))}
      </SimpleGrid>
    </Fieldset>
  );
}

export function AddLocationDialog({ onSubmit, ...p }: DialogProps & { onSubmit: (v: StaffAddLocationBody) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [slug, setSlug] = useState('');
  const [code, setCode] = useState('');
  const [country, setCountry] = useState(noNames);
  const [city, setCity] = useState(noNames);
  const [lat, setLat] = useState('');
  const [lon, setLon] = useState('');
  const [premium, setPremium] = useState(false);
  const [visible, setVisible] = useState(true);
  const [tried, setTried] = useState(false);
  const latN = Number(lat);
  const lonN = Number(lon);
  const ok = {
    slug: STAFF_SLUG_RE.test(slug),
    code: /^[A-Za-z]{2}$/.test(code),
    lat: lat.trim() !== '' && Number.isFinite(latN) && Math.abs(latN) <= 90,
    lon: lon.trim() !== '' && Number.isFinite(lonN) && Math.abs(lonN) <= 180,
  };
  return (
    <ConfirmDialog
      cancelLabel={t('common.cancel')}
      opened
      size="lg"
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={t('nodes.addLocation')}
      confirmLabel={t('nodes.addLocationConfirm')}
      testId="add-location-dialog"
      onConfirm={() => {
        setTried(true);
        if (ok.slug && ok.code && ok.lat && ok.lon && namesOk(country) && namesOk(city)) {
          onSubmit({
            slug,
            countryCode: code.toUpperCase(),
            country: trimmed(country),
            city: trimmed(city),
            latitude: latN,
            longitude: lonN,
            premium,
            visible,
          });
        }
      }}
    >
      <Group grow align="flex-start">
        <TextInput
          label={t('nodes.slug')}
          description={t('nodes.slugHint')}
          required
          value={slug}
          onChange={(e) => setSlug(e.currentTarget.value)}
          error={tried && !ok.slug ? t('nodes.slugInvalid') : null}
          data-autofocus
          data-testid="location-slug"
        />
        <TextInput
          label={t('nodes.countryCode')}
          description={t('nodes.countryHint')}
          required
          maxLength={2}
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={tried && !ok.code ? t('nodes.countryInvalid') : null}
          data-testid="location-code"
        />
      </Group>
      <NamesFieldset
        legend={t('nodes.country')}
        value={country}
        onChange={setCountry}
        tried={tried}
        testId="location-country"
      />
      <NamesFieldset legend={t('nodes.city')} value={city} onChange={setCity} tried={tried} testId="location-city" />
      <Group grow align="flex-start">
        <TextInput
          label={t('nodes.latitude')}
          inputMode="decimal"
          required
          value={lat}
          onChange={(e) => setLat(e.currentTarget.value)}
          error={tried && !ok.lat ? t('nodes.latitudeInvalid') : null}
          data-testid="location-lat"
        />
        <TextInput
          label={t('nodes.longitude')}
          inputMode="decimal"
          required
          value={lon}
          onChange={(e) => setLon(e.currentTarget.value)}
          error={tried && !ok.lon ? t('nodes.longitudeInvalid') : null}
          data-testid="location-lon"
        />
      </Group>
      <Checkbox label={t('nodes.premium')} checked={premium} onChange={(e) => setPremium(e.currentTarget.checked)} />
      <Checkbox label={t('nodes.visible')} checked={visible} onChange={(e) => setVisible(e.currentTarget.checked)} />
    </ConfirmDialog>
  );
}

export function AddNodeDialog({
  locations,
  location,
  onSubmit,
  ...p
}: DialogProps & { locations: StaffLocation[]; location: string | null; onSubmit: (v: StaffAddNodeBody) => void }) {
  const { t } = useTranslation(STAFF_NS);
  const [loc, setLoc] = useState(location ?? locations[0]?.slug ?? '');
  const [name, setName] = useState('');
  const [host, setHost] = useState('');
  const [port, setPort] = useState('51820');
  const [tried, setTried] = useState(false);
  const portN = Number(port);
  const ok = {
    loc: loc !== '',
    name: STAFF_NODE_NAME_RE.test(name),
    host: HOST.test(host),
    port: Number.isInteger(portN) && portN >= 1 && portN <= 65535,
  };
  return (
    <ConfirmDialog
      cancelLabel={t('common.cancel')}
      opened
      {...p}
      error={refusal(p.error, t('dialogs.failed'))}
      title={t('nodes.addNode')}
      confirmLabel={t('nodes.addNodeConfirm')}
      testId="add-node-dialog"
      onConfirm={() => {
        setTried(true);
        if (ok.loc && ok.name && ok.host && ok.port)
          onSubmit({ location: loc, name, endpointHost: host, listenPort: portN });
      }}
    >
      <NativeSelect
        label={t('nodes.location')}
        value={loc}
        onChange={(e) => setLoc(e.currentTarget.value)}
        data={locations.map((l) => ({ value: l.slug, label: `${l.city}, ${l.country} (${l.slug})` }))}
        data-testid="node-location"
      />
      <TextInput
        label={t('nodes.nodeName')}
        description={t('nodes.nodeNameHint')}
        required
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        error={tried && !ok.name ? t('nodes.slugInvalid') : null}
        data-autofocus
        data-testid="node-name"
      />
      <Group grow align="flex-start">
        <TextInput
          label={t('nodes.host')}
          description={t('nodes.hostHint')}
          required
          value={host}
          onChange={(e) => setHost(e.currentTarget.value)}
          error={tried && !ok.host ? t('nodes.hostInvalid') : null}
          data-testid="node-host"
        />
        <TextInput
          label={t('nodes.port')}
          inputMode="numeric"
          required
          value={port}
          onChange={(e) => setPort(e.currentTarget.value)}
          error={tried && !ok.port ? t('nodes.portInvalid') : null}
        />
      </Group>
    </ConfirmDialog>
  );
}
