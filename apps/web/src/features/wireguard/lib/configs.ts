import { renderWgConfig, wgConfigFileName, type WgDevice, type WgLocation, type WgOverview } from '@warren/contract';

/** Config files of a freshly added device, one per available location, built in the browser. */
export function configFor(
  device: WgDevice,
  privateKey: string,
  loc: WgLocation,
  o: Pick<WgOverview, 'dns' | 'allowedIps'>,
): { name: string; text: string } {
  return {
    name: wgConfigFileName(loc),
    text: renderWgConfig({
      privateKey,
      addresses: [device.ipv4, device.ipv6],
      dns: o.dns,
      serverPublicKey: loc.publicKey!,
      endpoint: loc.endpoint!,
      allowedIps: o.allowedIps,
      title: `${loc.country}, ${loc.city} (${device.name})`,
    }),
  };
}

export function saveFile(name: string, data: BlobPart, type: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** One zip with every available location's config (fflate, loaded on demand). */
export async function zipConfigs(files: { name: string; text: string }[]): Promise<Uint8Array> {
  const { zipSync, strToU8 } = await import('fflate');
  return zipSync(Object.fromEntries(files.map((f) => [f.name, strToU8(f.text)])), { level: 6 });
}
