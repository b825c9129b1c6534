import { Alert, Button, Group, Select, Text } from '@mantine/core';
import '@mantine/core/styles/Alert.layer.css';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WgDevice } from '@warren/contract';
import { IconLock } from '../../../components/icons';
import { errorBodyOf, errorStatus, errorText } from '../../../lib/http-error';
import { openConfirm } from '../../../lib/confirm';
import { snackbar } from '../../../lib/notify';
import { useRotateWgKey } from '../api/rotate-wg-key';
import { useSetWgKeyLifetime } from '../api/set-wg-key-lifetime';
import { keyExpiryLabel, lifetimeChoices } from '../lib/key-expiry';
import { generateWgKeyPair } from '../lib/wg-keys';

/** A rotated device with its new private key: the page shows its configuration like a new device's. */
export interface RotatedKey {
  device: WgDevice;
  privateKey: string;
}

const TONE_COLOR = { ok: 'dimmed', soon: 'orange', expired: 'red' } as const;

/**
 * A device's key (issue 23): how long it lives (never, or 1-30 days), when it expires, and "Rotate
 * key": a new key pair made in this browser for the same device (name and addresses stay), whose
 * configuration the page then offers. An expired key says so: the device cannot connect until rotated.
 */
export function WgDeviceKey({ device, onRotated }: { device: WgDevice; onRotated: (r: RotatedKey) => void }) {
  const { t } = useTranslation();
  const rotate = useRotateWgKey();
  const lifetime = useSetWgKeyLifetime();
  const [busy, setBusy] = useState(false);
  const label = keyExpiryLabel(device, Date.now(), t);
  const expired = label?.tone === 'expired';
  const dayLabel = (d: number | null) => (d === null ? t('setup.wgKey.never') : t('setup.wgKey.days', { count: d }));

  const doRotate = async () => {
    setBusy(true);
    try {
      const keys = await generateWgKeyPair();
      const rotated = await rotate.mutateAsync({
        id: device.id,
        previousKey: device.publicKey,
        publicKey: keys.publicKey,
      });
      onRotated({ device: rotated, privateKey: keys.privateKey });
      snackbar(t('setup.wgKey.rotated'), { kind: 'success' });
    } catch (err) {
      snackbar(
        errorStatus(err) === 409
          ? t('setup.wgKey.rotateConflict')
          : errorText(errorBodyOf(err), t('setup.wgKey.rotateFailed')),
      );
    } finally {
      setBusy(false);
    }
  };
  const askRotate = () =>
    expired
      ? void doRotate()
      : openConfirm({
          title: t('setup.wgKey.rotateTitle', { name: device.name }),
          body: t('setup.wgKey.rotateText'),
          confirmLabel: t('setup.wgKey.rotate'),
          cancelLabel: t('setup.wg.cancel'),
          confirmTestId: 'confirm-rotate',
          onConfirm: () => void doRotate(),
        });

  const rotateButton = (
    <Button
      size="xs"
      variant={expired ? 'filled' : 'default'}
      loading={busy}
      onClick={askRotate}
      data-testid="rotate-key"
    >
      {t('setup.wgKey.rotate')}
    </Button>
  );

  return (
    <div data-testid="wg-device-key" data-state={expired ? 'expired' : (label?.tone ?? 'never')}>
      {expired && (
        <Alert color="red" variant="light" p="xs" mt="xs" icon={<IconLock size={16} />} data-testid="wg-key-expired">
          <Group justify="space-between" gap="xs" wrap="wrap">
            <Text size="sm">{label.text}</Text>
            {rotateButton}
          </Group>
        </Alert>
      )}
      <Group gap="sm" mt="xs" align="flex-end" wrap="wrap">
        <Select
          size="xs"
          w={150}
          label={t('setup.wgKey.lifetime')}
          data={lifetimeChoices(device.keyLifetimeDays).map((d) => ({
            value: d === null ? 'never' : String(d),
            label: dayLabel(d),
          }))}
          value={device.keyLifetimeDays ? String(device.keyLifetimeDays) : 'never'}
          onChange={(v) =>
            v &&
            lifetime.mutate(
              { id: device.id, days: v === 'never' ? null : Number(v) },
              { onSuccess: () => snackbar(t('setup.wgKey.lifetimeSaved'), { kind: 'success' }) },
            )
          }
          allowDeselect={false}
          disabled={expired || lifetime.isPending}
          comboboxProps={{ withinPortal: true }}
          data-testid="key-lifetime"
        />
        {label && !expired && (
          <Text size="xs" c={TONE_COLOR[label.tone]} pb={6} data-testid="key-expires">
            {label.text}
          </Text>
        )}
        {!expired && rotateButton}
      </Group>
    </div>
  );
}
