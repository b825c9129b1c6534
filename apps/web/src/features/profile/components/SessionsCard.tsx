import { Badge, Button, Card, Group, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Skeleton.layer.css';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useTranslation } from 'react-i18next';
import { snackbar } from '../../../lib/notify';
import { IconDevice } from '../../../components/icons';
import { useRevokeOtherSessions } from '../api/revoke-other-sessions';
import { useRevokeSession } from '../api/revoke-session';
import { useSessions } from '../api/sessions';
import { describeUserAgent } from '@warren/contract';

/** Active sessions: where the account is signed in, with sign-out of one or of all the others. */
export function SessionsCard() {
  const { t, i18n } = useTranslation();
  const sessions = useSessions();
  const revoke = useRevokeSession();
  const revokeOthers = useRevokeOtherSessions();
  const others = sessions.data?.filter((s) => !s.current).length ?? 0;
  const when = (iso: string) =>
    new Date(iso).toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'short' });

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profile-sessions">
      <Group justify="space-between" mb="md" gap="sm">
        <Title order={2} fz={18} id="profile-sessions">
          {t('profile.sessions')}
        </Title>
        <Button
          variant="light"
          color="red"
          disabled={others === 0}
          loading={revokeOthers.isPending}
          onClick={() =>
            revokeOthers.mutate(undefined, {
              onSuccess: () => snackbar(t('profile.othersSignedOut'), { kind: 'success' }),
            })
          }
        >
          {t('profile.signOutOthers')}
        </Button>
      </Group>
      {sessions.isPending ? (
        <Skeleton h={64} />
      ) : (
        <Stack gap={0} data-testid="sessions-list">
          {(sessions.data ?? []).map((s) => {
            const ua = describeUserAgent(s.userAgent);
            const name =
              ua.browser && ua.os
                ? t('profile.browserOn', { browser: ua.browser, os: ua.os })
                : (ua.browser ?? ua.os ?? t('profile.unknownDevice'));
            return (
              <Group
                key={s.id}
                justify="space-between"
                wrap="nowrap"
                py="sm"
                style={{ borderTop: '1px solid var(--mantine-color-gray-2)' }}
                data-testid="session-row"
              >
                <Group gap="sm" wrap="nowrap" miw={0}>
                  <ThemeIcon variant="light" color={s.current ? 'teal' : 'gray'} size={36} radius="md">
                    <IconDevice size={20} />
                  </ThemeIcon>
                  <div style={{ minWidth: 0 }}>
                    <Group gap={6} wrap="nowrap">
                      <Text fw={600} truncate>
                        {name}
                      </Text>
                      {s.current && (
                        <Badge color="teal" variant="light" radius="sm">
                          {t('profile.thisDevice')}
                        </Badge>
                      )}
                    </Group>
                    <Text size="xs" c="dimmed">
                      {t('profile.lastActive', { date: when(s.lastUsedAt) })} ·{' '}
                      {t('profile.signedIn', { date: when(s.createdAt) })}
                    </Text>
                  </div>
                </Group>
                {!s.current && (
                  <Button
                    variant="subtle"
                    color="red"
                    size="compact-sm"
                    loading={revoke.isPending && revoke.variables?.id === s.id}
                    onClick={() =>
                      revoke.mutate(
                        { id: s.id },
                        { onSuccess: () => snackbar(t('profile.sessionSignedOut'), { kind: 'success' }) },
                      )
                    }
                    aria-label={`${t('profile.signOutSession')}: ${name}`}
                  >
                    {t('profile.signOutSession')}
                  </Button>
                )}
              </Group>
            );
          })}
        </Stack>
      )}
    </Card>
  );
}
