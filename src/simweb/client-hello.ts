/**
 * Reads the server name (SNI, RFC 6066 §3) from the first TLS record of a connection, so that a
 * host that "does not speak TLS" can be answered with a handshake_failure alert before any TLS
 * state exists: the client then sees a TLS error, as it would from a misconfigured server,
 * rather than a bare connection reset.
 */

/** The SNI host name in a ClientHello record, or null when absent or not parseable. */
export function sniFromClientHello(b: Buffer): string | null {
  // TLS record: type(1)=22, version(2), length(2); handshake: type(1)=1, length(3).
  if (b.length < 9 || b[0] !== 0x16 || b[5] !== 0x01) return null;
  let p = 9 + 2 + 32; // client_version, random
  if (p >= b.length) return null;
  p += 1 + b[p]!; // session_id
  if (p + 2 > b.length) return null;
  p += 2 + b.readUInt16BE(p); // cipher_suites
  if (p >= b.length) return null;
  p += 1 + b[p]!; // compression_methods
  if (p + 2 > b.length) return null;
  const end = Math.min(b.length, p + 2 + b.readUInt16BE(p));
  p += 2;
  while (p + 4 <= end) {
    const type = b.readUInt16BE(p);
    const len = b.readUInt16BE(p + 2);
    p += 4;
    if (type === 0 && p + 5 <= end) {
      // server_name_list: length(2), name_type(1)=0 host_name, length(2), name
      const nameLen = b.readUInt16BE(p + 3);
      if (b[p + 2] === 0 && p + 5 + nameLen <= end) return b.toString('latin1', p + 5, p + 5 + nameLen);
      return null;
    }
    p += len;
  }
  return null;
}

/** A fatal handshake_failure alert record (RFC 8446 §6: level 2, description 40). */
export const HANDSHAKE_FAILURE_ALERT = Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]);
