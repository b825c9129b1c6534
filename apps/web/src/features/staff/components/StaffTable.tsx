import type { ReactNode } from 'react';
import { Table } from '@mantine/core';
import '@mantine/core/styles/Table.layer.css';
import classes from './StaffTable.module.css';

/**
 * A data table that scrolls sideways on a phone instead of squeezing its columns; the scroll
 * area is focusable and labelled so a keyboard can scroll it too. `stacked`: on a phone each row
 * is a card instead, every cell under its column's name (the cells carry `data-label`), so
 * nothing scrolls sideways at all.
 */
export function StaffTable({
  label,
  minWidth = 640,
  head,
  children,
  testId,
  stacked = false,
}: {
  label: string;
  minWidth?: number;
  head: ReactNode[];
  children: ReactNode;
  testId?: string;
  stacked?: boolean;
}) {
  return (
    <Table.ScrollContainer
      minWidth={minWidth}
      type="native"
      tabIndex={0}
      role="region"
      aria-label={label}
      className={stacked ? classes.stackedScroll : undefined}
    >
      <Table
        verticalSpacing="xs"
        highlightOnHover
        data-testid={testId}
        className={stacked ? classes.stacked : undefined}
      >
        <Table.Thead>
          <Table.Tr>
            {head.map((h, i) => (
              <Table.Th key={i} scope="col">
                {h}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
