/** The recovery codes as a text file (one a line) for the Download button. */
export function recoveryCodesFile(product: string, email: string, codes: readonly string[]): string {
  return [
    `${product} recovery codes for ${email}`,
    'Each code signs you in once when you cannot use your authenticator app.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/** The secret in groups of four, easier to type into an authenticator app. */
export function groupSecret(secret: string): string {
  return secret
    .replace(/\s+/g, '')
    .replace(/(.{4})/g, '$1 ')
    .trim();
}
