import { useEffect, useMemo, useState } from 'react';
import { ActionIcon, Button, CloseButton, Group, Paper, Stack, Text, ThemeIcon, Transition } from '@mantine/core';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useTranslation } from 'react-i18next';
import { getBrand } from '../../lib/brand';
import { IconChat } from '../../components/icons';
import { supportChatState } from './support-chat';
import classes from './AppLayout.module.css';

function browserLanguages(): string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? [...navigator.languages] : navigator.language ? [navigator.language] : [];
}

/** The floating support chat (spec section 2): a card leading to the brand's messenger bot. */
export function SupportChat({ raised }: { raised: boolean }) {
  const { t } = useTranslation();
  const botUrl = getBrand().supportChat?.botUrl ?? null;
  const state = useMemo(
    () => supportChatState({ botUrl, languages: browserLanguages(), search: window.location.search }),
    [botUrl],
  );
  const [open, setOpen] = useState(state.openOnStart);
  useEffect(() => setOpen(state.openOnStart), [state.openOnStart]);
  if (!botUrl || (!state.button && !open)) return null;

  return (
    <div className={classes.chat} data-raised={raised || undefined}>
      <Transition mounted={open} transition="pop-bottom-right" duration={150}>
        {(style) => (
          <Paper
            style={style}
            shadow="xl"
            radius="lg"
            p="md"
            withBorder
            className={classes.chatCard}
            role="dialog"
            aria-label={t('shell.chat.title')}
            data-testid="support-chat-card"
          >
            <Group justify="space-between" wrap="nowrap" mb="xs">
              <Group gap="sm" wrap="nowrap">
                <ThemeIcon radius="xl" size={36}>
                  <IconChat size={18} />
                </ThemeIcon>
                <Text fw={700}>{t('shell.chat.title')}</Text>
              </Group>
              <CloseButton onClick={() => setOpen(false)} aria-label={t('shell.chat.close')} />
            </Group>
            <Stack gap="sm">
              <Text size="sm" c="dimmed">
                {t('shell.chat.text')}
              </Text>
              <Button component="a" href={botUrl} target="_blank" rel="noopener noreferrer" fullWidth>
                {t('shell.chat.open')}
              </Button>
            </Stack>
          </Paper>
        )}
      </Transition>
      {state.button && (
        <ActionIcon
          size={56}
          radius="xl"
          variant="filled"
          onClick={() => setOpen((o) => !o)}
          aria-label={t(open ? 'shell.chat.close' : 'shell.chat.button')}
          aria-expanded={open}
          className={classes.chatButton}
          data-testid="support-chat-button"
        >
          <IconChat size={26} />
        </ActionIcon>
      )}
    </div>
  );
}
