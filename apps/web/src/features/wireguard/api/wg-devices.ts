import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, wgDevice, type WgDevice } from '@warren/contract';
import { z } from 'zod';
import { api } from '../../../lib/api-client';

/**
 * POST setup/wg/devices/add: only the public key leaves the browser, with the location the device
 * starts on (its servers must have room: a 409 with a `location` error otherwise, which the page
 * says in the customer's language, so the client's own snackbar stays silent).
 */
export async function addWgDevice(body: { name: string; publicKey: string; location?: string }): Promise<WgDevice> {
  const res = await api.post('setup/wg/devices/add', { json: body, context: { silent: true } }).json();
  return envelope(z.object({ device: wgDevice })).parse(res).data.device;
}

/** POST setup/wg/devices/rename */
export async function renameWgDevice(body: { id: number; name: string }): Promise<void> {
  await api.post('setup/wg/devices/rename', { json: body });
}

/** POST setup/wg/devices/revoke: the peer leaves every node within seconds. */
export async function revokeWgDevice(body: { id: number }): Promise<void> {
  await api.post('setup/wg/devices/revoke', { json: body });
}

function useDeviceMutation<A, R>(fn: (a: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => qc.invalidateQueries({ queryKey: ['setup', 'wg'] }) });
}

export const useAddWgDevice = () => useDeviceMutation(addWgDevice);
export const useRenameWgDevice = () => useDeviceMutation(renameWgDevice);
export const useRevokeWgDevice = () => useDeviceMutation(revokeWgDevice);
