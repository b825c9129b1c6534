import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, wgDevice, type RotateWgKeyBody, type WgDevice } from '@warren/contract';
import { z } from 'zod';
import { api } from '../../../lib/api-client';

/**
 * POST setup/wg/devices/rotate (issue 23): the device's new public key (the pair is made in this
 * browser; the private key never leaves it) and the key the page saw it with. The same name and
 * addresses, a new key lifetime; the old key leaves the nodes. A 409 (another tab rotated it first)
 * is said by the caller, so the client's own snackbar stays silent.
 */
export async function rotateWgKey(body: RotateWgKeyBody): Promise<WgDevice> {
  const res = await api.post('setup/wg/devices/rotate', { json: body, context: { silent: true } }).json();
  return envelope(z.object({ device: wgDevice })).parse(res).data.device;
}

export function useRotateWgKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: rotateWgKey,
    onSettled: () => qc.invalidateQueries({ queryKey: ['setup', 'wg'] }),
  });
}
