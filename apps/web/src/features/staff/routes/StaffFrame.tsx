import { Badge, Group } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { Outlet } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LanguageSwitcher } from '../../../components/LanguageSwitcher';
import { Logo } from '../../../components/Logo';
import { ColorSchemeToggle } from '../components/ColorSchemeToggle';
import { STAFF_NS, addStaffTranslations } from '../lib/i18n';
import classes from './staff.module.css';

// Before the first render of any console page (RootLayout's title reads staff:titles.*).
addStaffTranslations();

/** The console's own frame: no customer menu, just the brand, "Operator console", language and colour scheme. */
export function StaffFrame() {
  const { t } = useTranslation(STAFF_NS);
  return (
    <div className={classes.frame}>
      <header className={classes.header}>
        <Group gap="sm" wrap="nowrap" miw={0}>
          <Logo size="sm" />
          <Badge variant="light" color="grape" radius="sm" className={classes.consoleBadge}>
            {t('frame.console')}
          </Badge>
        </Group>
        <Group gap="xs" wrap="nowrap">
          <LanguageSwitcher compact />
          <ColorSchemeToggle />
        </Group>
      </header>
      <Outlet />
    </div>
  );
}

export const Component = StaffFrame;
