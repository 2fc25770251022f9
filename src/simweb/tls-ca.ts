/**
 * A throw-away certificate authority for tests and the simulated web: one ECDSA P-256 CA made at
 * start, and leaf certificates issued on demand per host name. Every leaf shares one key pair
 * (only the certificate differs), so issuing costs one signature, not a key generation: a crawl
 * of a million hosts must not mean a million key pairs. Callers cache leaves (see Lru).
 */
import { webcrypto } from 'node:crypto';
import './reflect-shim.js';
import * as x509 from '@peculiar/x509';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

type KeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export interface LeafOptions {
  /** DNS names for the subjectAltName; default: the host itself. */
  names?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

export interface PemPair {
  certPem: string;
  keyPem: string;
}

export interface TestCa {
  /** The CA certificate, PEM: what a client is given with `--cacert`. */
  readonly certPem: string;
  /** Issues a leaf certificate for `host` (and `options.names`), signed by this CA. */
  leafFor(host: string, options?: LeafOptions): Promise<PemPair>;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(12));
  bytes[0]! &= 0x7f; // DER INTEGER must be positive
  bytes[0]! |= 0x01; // and without a leading zero byte
  return Buffer.from(bytes).toString('hex');
}

/** Creates a CA valid from yesterday for ten years (clock skew between test processes is harmless). */
export async function createTestCa(commonName = 'adsnap simweb test CA'): Promise<TestCa> {
  const now = Date.now();
  const caKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as KeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const leafKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as KeyPair;
  const leafKeyPem = pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey));
  const authorityKeyId = await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey);

  return {
    certPem: ca.toString('pem') + '\n',
    async leafFor(host: string, options: LeafOptions = {}): Promise<PemPair> {
      const names = options.names ?? [host];
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: randomSerial(),
        subject: `CN=${host}`,
        issuer: ca.subject,
        notBefore: options.notBefore ?? new Date(now - DAY),
        notAfter: options.notAfter ?? new Date(now + 825 * DAY),
        signingAlgorithm: ALG,
        publicKey: leafKeys.publicKey,
        signingKey: caKeys.privateKey,
        extensions: [
          new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value }))),
          new x509.BasicConstraintsExtension(false),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          authorityKeyId,
        ],
      });
      return { certPem: cert.toString('pem') + '\n', keyPem: leafKeyPem };
    },
  };
}
