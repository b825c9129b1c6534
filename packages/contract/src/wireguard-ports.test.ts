import { describe, expect, it } from 'vitest';
import { renderWgConfig } from './wireguard.js';
import { endpointPort, endpointWithPort, offeredWgPorts, wgOverviewQuery } from './wireguard-ports.js';

const base = {
  privateKey: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
  addresses: ['10.64.0.2', 'fd77:6172:7265::2'],
  dns: ['10.64.0.1'],
  serverPublicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
};

describe('the WireGuard port a customer picks (issue 23)', () => {
  it('puts the chosen port into the Endpoint, for an IPv4, an IPv6 and a named host', () => {
    expect(endpointWithPort('198.51.100.7:51820', 443)).toBe('198.51.100.7:443');
    expect(endpointWithPort('[2001:db8::7]:51820', 53)).toBe('[2001:db8::7]:53');
    expect(endpointWithPort('fra.vpn.example.net:51820', 443)).toBe('fra.vpn.example.net:443');
    const text = renderWgConfig({ ...base, endpoint: endpointWithPort('198.51.100.7:51820', 443) });
    expect(text).toMatch(/^Endpoint = 198\.51\.100\.7:443$/m);
    expect(text.match(/^Endpoint = .*$/gm)).toHaveLength(1);
  });

  it('leaves a config without a choice as it was (the endpoint the API gave)', () => {
    expect(renderWgConfig({ ...base, endpoint: '198.51.100.7:51820' })).toMatch(/^Endpoint = 198\.51\.100\.7:51820$/m);
    expect(endpointPort('198.51.100.7:51820')).toBe(51820);
    expect(endpointPort('[2001:db8::7]:443')).toBe(443);
    expect(endpointPort('host')).toBeNull();
  });

  it('refuses a port that is not one', () => {
    for (const bad of [0, 65536, 1.5, -1, Number.NaN]) expect(() => endpointWithPort('h:1', bad)).toThrow(RangeError);
  });

  it('offers the default first, then the extra ports sorted, each once', () => {
    expect(offeredWgPorts(51820, [443, 53, 443])).toEqual([51820, 53, 443]);
    expect(offeredWgPorts(443, [53, 443])).toEqual([443, 53]);
    expect(offeredWgPorts(51820, [])).toEqual([51820]);
  });

  it('the overview query: a port 1..65535 or none; anything else is a field message', () => {
    expect(wgOverviewQuery.parse({ port: '443' })).toMatchObject({ port: 443 });
    expect(wgOverviewQuery.parse({})).not.toHaveProperty('port', expect.anything());
    for (const bad of ['0', '65536', '44a', '', ' 443', '4.5', '-1', '999999', ['443', '53']]) {
      const r = wgOverviewQuery.safeParse({ port: bad });
      expect(r.success, JSON.stringify(bad)).toBe(false);
      expect(r.error!.issues[0]!.path).toEqual(['port']);
      expect(r.error!.issues[0]!.message).toBe('The port must be a whole number from 1 to 65535.');
    }
  });
});
