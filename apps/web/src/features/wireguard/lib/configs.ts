import {
  endpointWithPort,
  renderWgConfig,
  wgConfigFileName,
  type WgDevice,
  type WgLocation,
  type WgOverview,
} from '@warren/contract';

/** How the customer wants the file (Mullvad's generator offers the same choice). */
export interface ConfigOptions {
  /**
   * IPv4 only: no IPv6 address and no IPv6 resolver in the file, for networks and apps that
   * misbehave with IPv6. AllowedIPs keep `::/0`, so the device's IPv6 traffic still enters the
   * tunnel, where it has no address and goes nowhere: blocked, never leaked outside the VPN
   * (dropping `::/0` would send it around the tunnel). Apps fall back to IPv4.
   */
  ipv4Only?: boolean;
  /**
   * The port the Endpoint names (issue 23): one the location offers (`ports`); absent or not
   * offered there, the location's own port, as before.
   */
  port?: number | null;
}

/** Whether a location's file can name this port (null: the default, always). */
export const takesPort = (loc: Pick<WgLocation, 'ports'>, port: number | null | undefined): boolean =>
  port === null || port === undefined || (loc.ports ?? []).includes(port);

/** Config files of a freshly added device, one per available location, built in the browser. */
export function configFor(
  device: WgDevice,
  privateKey: string,
  loc: WgLocation,
  o: Pick<WgOverview, 'dns' | 'allowedIps'>,
  options: ConfigOptions = {},
): { name: string; text: string } {
  const v4 = (a: string) => !a.includes(':');
  return {
    name: wgConfigFileName(loc),
    text: renderWgConfig({
      privateKey,
      addresses: options.ipv4Only ? [device.ipv4] : [device.ipv4, device.ipv6],
      dns: options.ipv4Only ? o.dns.filter(v4) : o.dns,
      serverPublicKey: loc.publicKey!,
      endpoint:
        options.port != null && takesPort(loc, options.port)
          ? endpointWithPort(loc.endpoint!, options.port)
          : loc.endpoint!,
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
