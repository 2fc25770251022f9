/**
 * What the simulated web answers: a host's transport and TLS behaviour, and per URL a Route.
 * Both the synthetic web and the fixture hosts produce these; server.ts only executes them.
 */
import type { HostileKind } from './names.js';

export type Transport =
  | 'redirect_to_https' // http:// answers 301 to https://
  | 'both' // both schemes serve the same content
  | 'https_only' // plain HTTP connections are dropped once the request is read
  | 'http_only'; // TLS handshakes are aborted

export type TlsBehaviour = 'ok' | 'wrong_name' | 'expired' | 'abort';

export interface HostBehaviour {
  transport: Transport;
  tls: TlsBehaviour;
  /** Base delay before each answer, ms (0 when latency is off). */
  latencyMs: number;
}

export type Route =
  | { type: 'body'; status: number; contentType: string | null; body: Buffer; headers?: Record<string, string> }
  | { type: 'redirect'; status: number; location: string }
  | { type: 'hostile'; kind: HostileKind }
  /** Bytes written as they are, then the connection closed (an HTTP/1.0 close-delimited answer; realweb.ts). */
  | { type: 'raw'; status: number; bytes: Buffer }
  /** Close the connection without an answer. */
  | { type: 'drop' };

export const TEXT = 'text/plain; charset=utf-8';
export const HTML = 'text/html; charset=utf-8';
export const JSON_TYPE = 'application/json';

export function body(status: number, contentType: string | null, text: string | Buffer, headers?: Record<string, string>): Route {
  const b = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return headers ? { type: 'body', status, contentType, body: b, headers } : { type: 'body', status, contentType, body: b };
}

export function redirect(location: string, status = 301): Route {
  return { type: 'redirect', status, location };
}

export const NOT_FOUND: Route = body(404, HTML, '<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n');

/** A files.status value a correct crawl records for a file (contract §3), with what it should find. */
export interface ExpectedFile {
  status: string;
  records?: number;
  variables?: number;
}

/** What describe(host) tells tests and benchmarks about a host. */
export interface HostSpec {
  host: string;
  role: 'root' | 'www' | 'subdomain' | 'partner' | 'developer' | 'manager' | 'ad_system' | 'store' | 'hostile' | 'fixture' | 'unknown';
  /** Registrable domain the host belongs to. */
  root: string | null;
  /** 1-based rank in domains() for synthetic roots (and their hosts), else null. */
  rank: number | null;
  behaviour: HostBehaviour;
  /** The host the site redirects to (www ↔ apex), when it is not this one. */
  canonicalHost: string | null;
  hostile: HostileKind | null;
  /** ads.txt outcome chosen for this site (synthetic hosts), e.g. 'ok', 'soft_404', 'redirect_out'. */
  adsOutcome: string | null;
  /** Hosts named by subdomain= / inventorypartnerdomain= in this host's ads.txt. */
  subdomains: string[];
  partners: string[];
  /** What a correct crawl records per file kind for this host (subject = this host or its root). */
  expect: Partial<Record<'ads.txt' | 'app-ads.txt' | 'robots.txt' | 'sellers.json', ExpectedFile>>;
  /** Free text (fixtures: their _routes.json "about"). */
  about?: string;
}
