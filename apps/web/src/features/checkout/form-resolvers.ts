// The checkout's account form resolvers, built from the contract's schemas. The page loads this
// module lazily (lib/lazy-resolver.ts), so zod is not part of its first screen.
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { PASSWORD_MAX, email, password } from '@warren/contract';

/** One-step sign-up: the account is made with the payment. */
export const signUpResolver = zodResolver(z.object({ email, password }));
/** An existing email signs in: any password is sent (the server says whether it is right). */
export const signInResolver = zodResolver(
  z.object({
    email,
    password: z
      .string({ error: 'The password is required.' })
      .min(1, { error: 'The password is required.' })
      .max(PASSWORD_MAX),
  }),
);
