import { useRef } from 'react';
import { Menu, Text, useMantineColorScheme, type MantineColorScheme } from '@mantine/core';
import '@mantine/core/styles/Menu.layer.css';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { getBrand } from '../../lib/brand';
import { session, useSession } from '../../lib/session';
import { IconReceipt, IconHelp, IconLogout, IconUser, IconUsers } from '../../components/icons';
import { COLOR_SCHEMES } from '../../components/ColorSchemeSwitch';
import { focusIsLost } from '../../components/use-return-focus';
import { UserButton } from './UserButton';
import classes from './AppLayout.module.css';

/** The user menu itself: Mantine's Menu brings floating-ui, so it loads apart from the shell (UserMenu.tsx). */
export default function UserMenuPopover({ defaultOpened }: { defaultOpened: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useSession((s) => s.user);
  const deviceType = useSession((s) => s.deviceType);
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const target = useRef<HTMLButtonElement>(null);
  if (!user) return null;
  // Mantine's returnFocus remembers the opener only when a mounted menu opens; this one mounts
  // open (UserMenu.tsx), so focus is given back here: when it fell to the page or stayed in the
  // closing menu (Escape, an item), not when a click outside put it somewhere else.
  const onClose = () =>
    window.setTimeout(() => {
      if (focusIsLost(document.activeElement)) target.current?.focus();
    }, 0);
  const brand = getBrand();
  const fullName = [user.firstName, user.secondName].filter(Boolean).join(' ').trim();
  const portal = user.isPostAffiliateAvailable ? brand.affiliatePortalUrl : null;

  return (
    <Menu
      position="bottom-end"
      shadow="lg"
      width={260}
      withinPortal
      defaultOpened={defaultOpened}
      onClose={onClose}
      withInitialFocusPlaceholder={false}
    >
      <Menu.Target>
        <UserButton ref={target} user={user} />
      </Menu.Target>
      <Menu.Dropdown>
        <div className={classes.userHead}>
          {fullName && (
            <Text fw={600} size="sm" truncate>
              {fullName}
            </Text>
          )}
          <Text size="sm" c="dimmed" truncate data-testid="user-email">
            {user.email}
          </Text>
        </div>
        <Menu.Divider />
        <Menu.Item leftSection={<IconUser size={18} />} onClick={() => navigate('/profile')}>
          {t('menu.profile')}
        </Menu.Item>
        <Menu.Item leftSection={<IconReceipt size={18} />} onClick={() => navigate('/subscription')}>
          {t('menu.subscription')}
        </Menu.Item>
        {deviceType === 'mobile' ? (
          portal ? (
            <Menu.Item
              component="a"
              href={portal}
              target="_blank"
              rel="noopener noreferrer"
              leftSection={<IconUsers size={18} />}
            >
              {t('menu.affiliate')}
            </Menu.Item>
          ) : (
            <Menu.Item leftSection={<IconUsers size={18} />} onClick={() => navigate('/affiliate')}>
              {t('menu.affiliate')}
            </Menu.Item>
          )
        ) : (
          <Menu.Item
            component="a"
            href={brand.helpCenterUrl}
            target="_blank"
            rel="noopener noreferrer"
            leftSection={<IconHelp size={18} />}
          >
            {t('shell.contactUs')}
          </Menu.Item>
        )}
        <Menu.Divider />
        <Menu.Label>{t('colorScheme.label')}</Menu.Label>
        <Menu.RadioGroup value={colorScheme} onChange={(v) => setColorScheme(v as MantineColorScheme)}>
          {COLOR_SCHEMES.map(({ value, labelKey }) => (
            <Menu.RadioItem key={value} value={value} closeMenuOnClick={false}>
              {t(labelKey)}
            </Menu.RadioItem>
          ))}
        </Menu.RadioGroup>
        <Menu.Divider />
        <Menu.Item
          color="var(--mantine-color-red-text)"
          leftSection={<IconLogout size={18} />}
          onClick={() => void session.signOut()}
        >
          {t('shell.logOut')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
