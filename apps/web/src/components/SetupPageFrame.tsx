import { Group, Stack, Text, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { QueryState } from './QueryState';

/**
 * A VPN set-up page: its title and a dimmed intro (with an icon before it if given), then the
 * states of the page's data (loading, failed with a retry) and, once it is there, the page itself.
 */
export function SetupPageFrame<T>({
  title,
  intro,
  icon,
  query,
  loading,
  error,
  children,
}: {
  title: string;
  intro: string;
  icon?: ReactNode;
  query: Pick<UseQueryResult<T>, 'data' | 'isPending' | 'isError' | 'isFetching' | 'refetch'>;
  loading: string;
  error: string;
  children: (data: T) => ReactNode;
}) {
  return (
    <Stack gap="lg">
      <div>
        <Title order={2} fz={24}>
          {title}
        </Title>
        {icon ? (
          <Group gap={6} mt={4} wrap="nowrap" align="flex-start">
            {/* Never shrunk by a long intro on a phone (it became a dot). */}
            <span style={{ display: 'inline-flex', flex: 'none', marginTop: 2 }} aria-hidden="true">
              {icon}
            </span>
            <Text c="dimmed" size="sm">
              {intro}
            </Text>
          </Group>
        ) : (
          <Text c="dimmed" size="sm" mt={4}>
            {intro}
          </Text>
        )}
      </div>
      <QueryState query={query} loading={loading} error={error}>
        {children}
      </QueryState>
    </Stack>
  );
}
