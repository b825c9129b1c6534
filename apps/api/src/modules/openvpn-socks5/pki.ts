import 'reflect-metadata'; // @peculiar/x509's dependency injection needs it loaded first
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { Database, Queryable } from '../../db/client.js';
import { type Keyring, SEAL } from '../../lib/keyring.js';
import { openvpnSocks5Repository } from './repository.js';

/**
 * The control plane's OpenVPN PKI: one CA (ECDSA P-256) made on first start, a server certificate
 * per node, and the tls-crypt key. Private keys are stored AES-256-GCM encrypted under a key derived
 * from OPENVPN_CA_SECRET (or APP_SECRET), naming their key (lib/keyring.ts); they leave the API only to their own node. Clients get
 * no certificates: they authenticate with the account's service credentials.
 */
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const CA_YEARS = 20;
const SERVER_CERT_DAYS = 825;
/** A node's certificate is re-issued when it has less than this left. */
const RENEW_BEFORE_DAYS = 30;
const PKI_LOCK = 727_006;

export class PkiSecretError extends Error {}

/** An OpenVPN static key (V1): 2048 random bits as 16 lines of hex, the format `openvpn --genkey` writes. */
export function newTlsCryptKey(): string {
  const hex = randomBytes(256).toString('hex');
  const lines = hex.match(/.{32}/g)!;
  return `-----BEGIN OpenVPN Static key V1-----\n${lines.join('\n')}\n-----END OpenVPN Static key V1-----\n`;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

async function exportKey(key: CryptoKey): Promise<string> {
  return pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', key));
}

async function importKey(pemText: string): Promise<CryptoKey> {
  const der = Buffer.from(pemText.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, ALG, false, ['sign']);
}

const serial = () => {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f; // positive
  return b.toString('hex');
};

export interface CaMaterial {
  caCert: string;
  caKey: string;
  tlsCrypt: string;
}

export async function createCa(name = 'Warren VPN CA'): Promise<CaMaterial> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = new Date();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now.getTime() - 3600_000),
    notAfter: new Date(now.getTime() + CA_YEARS * 365 * 86_400_000),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { caCert: cert.toString('pem') + '\n', caKey: await exportKey(keys.privateKey), tlsCrypt: newTlsCryptKey() };
}

/** A TLS server certificate for one node, signed by the CA (what `remote-cert-tls server` checks). */
export async function issueServerCert(
  ca: Pick<CaMaterial, 'caCert' | 'caKey'>,
  commonName: string,
  now = new Date(),
): Promise<{ cert: string; key: string; notAfter: Date }> {
  const caCert = new x509.X509Certificate(ca.caCert);
  const caKey = await importKey(ca.caKey);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notAfter = new Date(now.getTime() + SERVER_CERT_DAYS * 86_400_000);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${commonName}`,
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - 3600_000),
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await exportKey(keys.privateKey), notAfter };
}

export function pkiStore(db: Database, keys: Keyring) {
  const repo = openvpnSocks5Repository(db);
  const seal = (plain: string) => keys.seal(SEAL.openvpnPki, plain);
  const open = (enc: string, what: string) => {
    const plain = keys.open(SEAL.openvpnPki, enc);
    // The server checked at start that every key its data names is configured (modules/secrets): this is a damaged value.
    if (plain === null)
      throw new PkiSecretError(
        `Cannot open the ${what} with the configured secrets (OPENVPN_CA_SECRET or APP_SECRET, APP_SECRET_PREVIOUS).`,
      );
    return plain;
  };
  let cached: CaMaterial | undefined;

  async function readCa(q: Queryable): Promise<CaMaterial | undefined> {
    const row = await openvpnSocks5Repository(q).pki();
    return (
      row && {
        caCert: row.ca_cert,
        caKey: open(row.ca_key_enc, 'OpenVPN CA key'),
        tlsCrypt: open(row.tls_crypt_enc, 'tls-crypt key'),
      }
    );
  }

  return {
    /** Makes the CA on first start (one instance wins the lock); later starts check the secret still opens it. */
    async ensureCa(): Promise<CaMaterial> {
      if (cached) return cached;
      cached = await db.exclusive(PKI_LOCK, async (tx) => {
        const existing = await readCa(tx);
        if (existing) return existing;
        const ca = await createCa();
        await openvpnSocks5Repository(tx).savePki(ca.caCert, seal(ca.caKey), seal(ca.tlsCrypt));
        return ca;
      });
      return cached;
    },

    /** The node's certificate and key, issued on first use and renewed near expiry. */
    async nodeCert(nodeId: number, nodeName: string): Promise<{ cert: string; key: string }> {
      const ca = await this.ensureCa();
      const row = await repo.nodeCert(nodeId);
      if (row && new Date(row.not_after).getTime() - Date.now() > RENEW_BEFORE_DAYS * 86_400_000)
        return { cert: row.cert, key: open(row.key_enc, 'node key') };
      const issued = await issueServerCert(ca, nodeName);
      await repo.saveNodeCert(nodeId, issued.cert, seal(issued.key), issued.notAfter);
      return { cert: issued.cert, key: issued.key };
    },
  };
}
export type PkiStore = ReturnType<typeof pkiStore>;
