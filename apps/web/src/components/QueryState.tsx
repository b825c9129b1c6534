import type { ReactNode } from 'react';
import { Alert, Button, Group, Loader, Paper, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { IconInfo } from './icons';

/** Loading: says what is loading (a spinner alone tells a screen reader nothing). */
export function LoadingState({ label, testId }: { label: string; testId?: string }) {
  return (
    <Paper withBorder p="lg" radius="lg" role="status" aria-live="polite" data-testid={testId ?? 'loading-state'}>
      <Group gap="sm" wrap="nowrap">
        <Loader size="sm" aria-hidden />
        <Text c="dimmed">{label}</Text>
      </Group>
    </Paper>
  );
}

/** Failed: what failed, and a retry. Never an empty list or a blank page. */
export function ErrorState({
  message,
  onRetry,
  retrying,
  testId,
}: {
  message: string;
  onRetry: () => void;
  retrying?: boolean;
  testId?: string;
}) {
  const { t } = useTranslation();
  return (
    <Alert color="red" variant="light" role="alert" title={message} data-testid={testId ?? 'error-state'}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm">{t('states.errorHint')}</Text>
        <Button size="xs" variant="outline" color="red" onClick={onRetry} loading={retrying}>
          {t('states.retry')}
        </Button>
      </Group>
    </Alert>
  );
}

/** Nothing to show: says so, in words that fit the view. */
export function EmptyState({ message, children, testId }: { message: string; children?: ReactNode; testId?: string }) {
  return (
    <Paper withBorder p="lg" radius="lg" data-testid={testId ?? 'empty-state'}>
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <IconInfo size={20} />
        <div>
          <Text>{message}</Text>
          {children}
        </div>
      </Group>
    </Paper>
  );
}

/**
 * One data view's states: loading, error with a retry, then the data. Each page passes words
 * for its own view ("Loading server locations…", "The server locations could not be loaded").
 */
export function QueryState<T>({
  query,
  loading,
  error,
  children,
}: {
  query: Pick<UseQueryResult<T>, 'data' | 'isPending' | 'isError' | 'isFetching' | 'refetch'>;
  loading: string;
  error: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isError && query.data === undefined)
    return <ErrorState message={error} onRetry={() => void query.refetch()} retrying={query.isFetching} />;
  if (query.isPending || query.data === undefined) return <LoadingState label={loading} />;
  return <>{children(query.data)}</>;
}
