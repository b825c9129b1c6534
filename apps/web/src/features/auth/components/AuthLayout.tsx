import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Anchor, Box, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Logo } from '../../../components/Logo';
import { LanguageSwitcher } from '../../../components/LanguageSwitcher';
import { IconLock } from '../../../components/icons';
import { getBrand } from '../../../lib/brand';
import { HydratedFieldset } from '../../../components/HydratedFieldset';
import classes from './AuthLayout.module.css';

/** The card's footer: an optional prompt, then a link to another auth page. */
export interface AuthFooterLink {
  prompt?: string;
  label: string;
  to: string;
}

export function AuthLayout({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  footer?: AuthFooterLink;
}) {
  const { t } = useTranslation();
  return (
    <div className={classes.page}>
      <header className={classes.top}>
        <Logo />
        <LanguageSwitcher />
      </header>
      <main className={classes.main}>
        <Card className={classes.card} shadow="xl" withBorder padding={0}>
          <Box className={classes.cardBody}>
            <Stack gap={6} mb="lg">
              <Title order={1} className={classes.title}>
                {title}
              </Title>
              {subtitle && (
                <Text c="dimmed" size="sm">
                  {subtitle}
                </Text>
              )}
            </Stack>
            {/* Server-rendered: nothing to type into or press until the app's handlers are attached. */}
            <HydratedFieldset className={classes.form}>{children}</HydratedFieldset>
          </Box>
          {footer && (
            <Box className={classes.cardFooter}>
              <Text size="sm">
                {footer.prompt && `${footer.prompt} `}
                <Anchor component={Link} to={footer.to} fw={600}>
                  {footer.label}
                </Anchor>
              </Text>
            </Box>
          )}
        </Card>
        <Group gap={6} justify="center" mt="lg" className={classes.trust}>
          <IconLock size={14} />
          <Text size="xs">{t('auth.trust')}</Text>
        </Group>
      </main>
      <footer className={classes.bottom}>
        <Text size="xs" c="dimmed">
          © {new Date().getFullYear()} {getBrand().productName}
        </Text>
        <Anchor size="xs" c="dimmed" href={getBrand().helpCenterUrl} target="_blank" rel="noopener noreferrer">
          {t('auth.help')}
        </Anchor>
      </footer>
    </div>
  );
}
