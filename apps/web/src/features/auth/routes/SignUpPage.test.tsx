import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderRoute } from '../../../test/render';
import { SignUpPage } from './SignUpPage';

describe('SignUpPage', () => {
  it('has labelled fields and shows the contract rules under them', async () => {
    await renderRoute(<SignUpPage />, '/sign-up');
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: /email/i }), 'nope');
    await user.type(screen.getByLabelText(/^password/i), 'short');
    await user.type(screen.getByLabelText(/confirm password/i), 'different');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('Enter a valid email address.')).toBeInTheDocument();
    expect(screen.getByText('The password must be at least 8 characters.')).toBeInTheDocument();
    expect(screen.getByText('The passwords do not match.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign-in');
  });
});
