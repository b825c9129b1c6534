import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, wgDevice, type SetWgKeyLifetimeBody, type WgDevice } from '@warren/contract';
import { z } from 'zod';
import { api } from '../../../lib/api-client';

/** POST setup/wg/devices/lifetime (issue 23): `days` null is never; a number starts the key's lifetime now. */
export async function setWgKeyLifetime(body: SetWgKeyLifetimeBody): Promise<WgDevice> {
  const res = await api.post('setup/wg/devices/lifetime', { json: body }).json();
  return envelope(z.object({ device: wgDevice })).parse(res).data.device;
}

export function useSetWgKeyLifetime() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: setWgKeyLifetime,
    onSettled: () => qc.invalidateQueries({ queryKey: ['setup', 'wg'] }),
  });
}
