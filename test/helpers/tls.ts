import type { SecureContext } from 'node:tls';
import { createSecureContext } from 'node:tls';
import { createTestCa, type TestCa } from '../../src/simweb/tls-ca.js';

/**
 * TLS for local test servers: reuses the simulated web's throw-away CA (src/simweb/tls-ca.ts)
 * and issues a leaf per SNI name on demand, so one HTTPS server can answer for any host name.
 */
export interface TestTls {
  ca: TestCa;
  /** The CA certificate (what `--cacert` / `caCerts` is given). */
  caPem: string;
  /** For `https.createServer({ SNICallback })`: a context for whatever name the client sent. */
  SNICallback: (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void;
}

export async function createTestTls(): Promise<TestTls> {
  const ca = await createTestCa('adsnap fetch test CA');
  const contexts = new Map<string, Promise<SecureContext>>();
  const contextFor = (name: string) => {
    let p = contexts.get(name);
    if (!p) {
      p = ca.leafFor(name).then(({ certPem, keyPem }) => createSecureContext({ cert: certPem, key: keyPem }));
      contexts.set(name, p);
    }
    return p;
  };
  return {
    ca,
    caPem: ca.certPem,
    SNICallback: (servername, cb) => {
      contextFor(servername || 'localhost').then(
        (ctx) => cb(null, ctx),
        (err: Error) => cb(err),
      );
    },
  };
}
