import { act } from 'react';
import { render, screen } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { describe, expect, it } from 'vitest';
import { initTestI18n } from '../test/render';
import { snackbar } from './notify';

describe('snackbar', () => {
  it("has a close control named by its label (the spec's Close button), in the UI language", async () => {
    await initTestI18n();
    render(
      <MantineProvider env="test">
        <Notifications />
      </MantineProvider>,
    );
    act(() => snackbar('Something went wrong'));
    expect(await screen.findByText('Something went wrong')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Close' })).toBeTruthy();
  });
});
