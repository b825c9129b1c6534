import { SegmentedControl, useMantineColorScheme, type MantineColorScheme } from '@mantine/core';
import '@mantine/core/styles/SegmentedControl.layer.css';
import { useTranslation } from 'react-i18next';
import { IconMonitor, IconMoon, IconSun } from './icons';

export const COLOR_SCHEMES: ReadonlyArray<{ value: MantineColorScheme; labelKey: string; Icon: typeof IconSun }> = [
  { value: 'light', labelKey: 'colorScheme.light', Icon: IconSun },
  { value: 'dark', labelKey: 'colorScheme.dark', Icon: IconMoon },
  { value: 'auto', labelKey: 'colorScheme.auto', Icon: IconMonitor },
];

/** Light / dark / system as a radio group (profile page); the user menu offers the same three. */
export function ColorSchemeSwitch({ fullWidth }: { fullWidth?: boolean }) {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <SegmentedControl
      aria-label={t('colorScheme.label')}
      data-testid="color-scheme-switch"
      fullWidth={fullWidth}
      value={colorScheme}
      onChange={(v) => setColorScheme(v as MantineColorScheme)}
      data={COLOR_SCHEMES.map(({ value, labelKey, Icon }) => ({
        value,
        label: (
          <span style={{ display: 'inline-flex', alignItems: 'center', gap: 6 }}>
            <Icon size={16} />
            {t(labelKey)}
          </span>
        ),
      }))}
    />
  );
}
