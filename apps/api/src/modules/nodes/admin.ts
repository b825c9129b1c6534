import { z } from 'zod';
import { dbInt, isWgKey } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import { ConflictError, NotFoundError, ValidationError, parseOrThrow } from '../../lib/errors.js';
import { hashToken, randomToken } from '../../lib/secrets.js';
import { locationSeed } from '../locations/catalogue.js';
import { locationsRepository } from '../locations/repository.js';
import { nodesRepository } from './repository.js';

/**
 * Operator actions on locations and nodes, used by `npx warren vpn …`, the operator console
 * (staff/vpn.ts) and tests. Node tokens are shown once and stored only as hashes. Bad input is a
 * ValidationError with field messages, a taken slug or name a ConflictError, an unknown one a
 * NotFoundError: the API answers them as they are, the CLI prints their message (exit 64).
 */
export const newLocation = locationSeed;
export type NewLocation = z.input<typeof newLocation>;

export const newNode = z.object({
  location: z.string().min(1),
  name: z.string().regex(/^[a-z0-9-]{2,60}$/, 'lower-case letters, digits and dashes'),
  endpointHost: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9.:-]+$/, 'a host name or an IP address'),
  listenPort: dbInt().min(1).max(65535).default(51820),
  publicKey: z.string().refine(isWgKey, 'a WireGuard public key (base64, 32 bytes)').optional(),
});
export type NewNode = z.input<typeof newNode>;

export const newNodeToken = () => `wn_${randomToken(32)}`;

export async function addLocation(db: Queryable, input: NewLocation): Promise<{ id: number }> {
  const l = parseOrThrow(newLocation, input);
  const row = await locationsRepository(db).addLocation(l);
  if (!row)
    throw new ConflictError(`A location with the slug ${l.slug} exists already.`, {
      slug: ['A location with this slug exists already.'],
    });
  return row;
}

export async function addNode(db: Queryable, input: NewNode): Promise<{ id: number; token: string }> {
  const n = parseOrThrow(newNode, input);
  const locationId = await locationsRepository(db).locationIdBySlug(n.location);
  if (locationId === undefined) throw new NotFoundError(`No location with the slug ${n.location}.`);
  const token = newNodeToken();
  const row = await nodesRepository(db).add({
    locationId,
    name: n.name,
    tokenHash: hashToken(token),
    endpointHost: n.endpointHost,
    listenPort: n.listenPort,
    publicKey: n.publicKey ?? null,
  });
  if (!row)
    throw new ConflictError(`A node named ${n.name} exists already.`, {
      name: ['A node with this name exists already.'],
    });
  return { id: row.id, token };
}

/** Issues a fresh token for a node (seeded nodes have none); the previous one stops working at once. */
export async function issueNodeToken(db: Queryable, name: string): Promise<string> {
  const token = newNodeToken();
  if (!(await nodesRepository(db).setTokenHash(name, hashToken(token))))
    throw new NotFoundError(`No node named ${name}.`);
  return token;
}

export async function setLocation(
  db: Queryable,
  slug: string,
  patch: { premium?: boolean; dashVisible?: boolean },
): Promise<void> {
  if (!(await locationsRepository(db).updateLocation(slug, patch)))
    throw new NotFoundError(`No location with the slug ${slug}.`);
}

export async function setNode(
  db: Queryable,
  name: string,
  patch: { enabled?: boolean; draining?: boolean; endpointHost?: string; listenPort?: number; publicKey?: string },
): Promise<void> {
  if (patch.publicKey !== undefined && !isWgKey(patch.publicKey))
    throw new ValidationError({ publicKey: ['The public key must be a WireGuard key (base64, 32 bytes).'] });
  if (!(await nodesRepository(db).update(name, patch))) throw new NotFoundError(`No node named ${name}.`);
}

/** Switches every node of a location on or off (the console's location switch). */
export async function setLocationNodes(db: Queryable, slug: string, enabled: boolean): Promise<void> {
  if ((await locationsRepository(db).locationIdBySlug(slug)) === undefined)
    throw new NotFoundError(`No location with the slug ${slug}.`);
  await nodesRepository(db).setLocationEnabled(slug, enabled);
}

export async function listNodes(db: Queryable) {
  return locationsRepository(db).operatorList();
}
