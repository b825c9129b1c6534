import geoip from 'geoip-country';
import maxmind, { type CountryResponse, type Reader } from 'maxmind';

/**
 * Country of an IP address: a MaxMind database file when configured (GEOIP_MMDB), otherwise
 * the country database embedded in the geoip-country package. Unknown, private and loopback
 * addresses get the configured default country.
 */
export interface GeoIp {
  country(ip: string): string;
  /** The country when the database knows the address; undefined otherwise (no default: the security mails say "unknown" rather than guess). */
  known(ip: string): string | undefined;
}

export async function createGeoIp(mmdbFile: string | undefined, defaultCountry: string): Promise<GeoIp> {
  let reader: Reader<CountryResponse> | undefined;
  if (mmdbFile) reader = await maxmind.open<CountryResponse>(mmdbFile);
  const known = (ip: string): string | undefined => {
    const clean = ip.replace(/^::ffff:/, '');
    try {
      const code = reader ? reader.get(clean)?.country?.iso_code : geoip.lookup(clean)?.country;
      return code && /^[A-Z]{2}$/.test(code) ? code : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    country: (ip) => known(ip) ?? defaultCountry,
    known,
  };
}
