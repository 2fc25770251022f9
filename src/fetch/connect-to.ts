import { isIP } from 'node:net';
import { toAsciiHost } from '../util/domain.js';

/**
 * `--connect-to HOST1:PORT1:HOST2:PORT2`, as curl spells it: requests for HOST1:PORT1 connect
 * to HOST2:PORT2 instead, keeping the URL's host for the Host header and TLS SNI.
 * An empty HOST1 or PORT1 matches any host or port; an empty HOST2 or PORT2 keeps the original.
 * IPv6 addresses are written in brackets (`[::1]`).
 */
export interface ConnectTo {
  /** Host to match (ASCII, lower-case), null = any host. */
  fromHost: string | null;
  /** Port to match, null = any port. */
  fromPort: number | null;
  /** Host or address to connect to instead (brackets removed), null = the URL's host. */
  toHost: string | null;
  /** Port to connect to instead, null = the URL's port. */
  toPort: number | null;
}

/** Splits on ':' outside brackets, so `[::1]:443:[::1]:8443` has four fields. */
function splitFields(spec: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (const ch of spec) {
    if (ch === '[') depth++;
    else if (ch === ']') depth--;
    if (ch === ':' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function parseHost(field: string, which: string, spec: string): string | null {
  if (field === '') return null;
  if (field.startsWith('[')) {
    const inner = field.endsWith(']') ? field.slice(1, -1) : '';
    if (isIP(inner) !== 6) throw new TypeError(`--connect-to ${JSON.stringify(spec)}: ${which} ${JSON.stringify(field)} is not a bracketed IPv6 address`);
    return inner.toLowerCase();
  }
  if (isIP(field) === 4) return field;
  const ascii = toAsciiHost(field);
  if (!/^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/.test(ascii)) {
    throw new TypeError(`--connect-to ${JSON.stringify(spec)}: ${which} ${JSON.stringify(field)} is not a host name or address`);
  }
  return ascii;
}

function parsePort(field: string, which: string, spec: string): number | null {
  if (field === '') return null;
  const n = /^\d{1,5}$/.test(field) ? Number(field) : NaN;
  if (!(n >= 1 && n <= 65535)) throw new TypeError(`--connect-to ${JSON.stringify(spec)}: ${which} ${JSON.stringify(field)} is not a port (1-65535)`);
  return n;
}

/** Parses one `HOST1:PORT1:HOST2:PORT2`; throws a TypeError naming the bad field. */
export function parseConnectTo(spec: string): ConnectTo {
  const fields = splitFields(spec);
  if (fields.length !== 4) {
    throw new TypeError(`--connect-to ${JSON.stringify(spec)}: expected HOST1:PORT1:HOST2:PORT2 (4 fields, IPv6 in brackets), got ${fields.length}`);
  }
  const [h1, p1, h2, p2] = fields as [string, string, string, string];
  const rule: ConnectTo = {
    fromHost: parseHost(h1, 'HOST1', spec),
    fromPort: parsePort(p1, 'PORT1', spec),
    toHost: parseHost(h2, 'HOST2', spec),
    toPort: parsePort(p2, 'PORT2', spec),
  };
  if (rule.toHost === null && rule.toPort === null) {
    throw new TypeError(`--connect-to ${JSON.stringify(spec)}: HOST2 and PORT2 are both empty; the rule would change nothing`);
  }
  return rule;
}

/** The first rule matching host:port (curl uses the first match), or null. */
export function matchConnectTo(rules: readonly ConnectTo[], host: string, port: number): ConnectTo | null {
  for (const r of rules) {
    if ((r.fromHost === null || r.fromHost === host) && (r.fromPort === null || r.fromPort === port)) return r;
  }
  return null;
}

/** The curl spelling of a rule, for manifests and messages. */
export function formatConnectTo(r: ConnectTo): string {
  const h = (x: string | null) => (x === null ? '' : isIP(x) === 6 ? `[${x}]` : x);
  return `${h(r.fromHost)}:${r.fromPort ?? ''}:${h(r.toHost)}:${r.toPort ?? ''}`;
}
