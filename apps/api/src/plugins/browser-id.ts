import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * This browser's id for the new-browser notice (modules/users/security-mail.ts): the one its
     * cookie holds, or a new one that the answer sets. Only sign-ins ask, so only they set it.
     */
    browserId(): string;
  }
}

/** httpOnly, so page scripts cannot read or copy it; `__Host-` in production, so no sibling subdomain can plant one. */
export const browserCookie = (secure: boolean) => (secure ? '__Host-warren-browser' : 'warren-browser');
const BROWSER_ID = /^[A-Za-z0-9_-]{43}$/;
/** Browsers cap a cookie's life at 400 days (RFC 6265bis); each sign-in starts the 400 days again. */
const MAX_AGE_S = 400 * 86_400;

/**
 * A long-lived random id per browser. The server keeps only an HMAC of it per account
 * (known_browsers), so the cookie is no credential: it signs nobody in, and a forged or copied
 * value at worst hides one "new browser" mail from the owner of the browser it was copied from.
 */
export function registerBrowserId(app: FastifyInstance, secureCookies: boolean): void {
  const name = browserCookie(secureCookies);
  const asked = new WeakMap<FastifyRequest, string>();
  app.decorateRequest('browserId', function (this: FastifyRequest): string {
    let id = asked.get(this);
    if (id) return id;
    const held = this.cookies[name];
    id = held && BROWSER_ID.test(held) ? held : randomBytes(32).toString('base64url');
    asked.set(this, id);
    return id;
  });
  app.addHook('onSend', async (request, reply) => {
    const id = asked.get(request);
    if (id)
      reply.setCookie(name, id, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookies,
        maxAge: MAX_AGE_S,
      });
  });
}
