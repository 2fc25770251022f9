/**
 * Where an ad system publishes its sellers.json. IAB sellers.json 1.0 puts the file at the root of
 * the ad system's domain (`https://<ad system>/sellers.json`), and most ad systems do; some do not:
 * google.com answers 404 there and publishes at realtimebidding.google.com (its Authorized Buyers
 * help says so). `data/sellers-locations.tsv` lists those, each with its source and the kind of
 * source (`ad system`: its own documentation; `third party`: a tool or study that uses it); the
 * crawl's `sellersLocations` (`--sellers-location AD_SYSTEM=URL`, `--sellers-locations FILE`)
 * add entries or replace an ad system's. The crawl asks the spec's location first, then the
 * table's, in order, until one gives a readable file (`candidatesFor`). Whatever the URL, the
 * file stays the ad system's: `files.subject` and `sellers.ad_system_domain` are the ad system,
 * so joins to `ads_records` are unchanged.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isValidDnsName, toAsciiHost } from '../util/domain.js';
import { packageRoot } from '../util/package-root.js';

/** The table shipped with adsnap. */
export function shippedLocationsFile(): string {
  return path.join(packageRoot(), 'data', 'sellers-locations.tsv');
}

/** sellers.json 1.0: the file at the root of the ad system's domain. */
export function defaultSellersUrl(adSystem: string): string {
  return `https://${adSystem}/sellers.json`;
}

export class SellersLocationError extends TypeError {
  readonly code = 'SELLERS_LOCATION_INVALID';
}

/**
 * An entry checked and normalised: the ad system as the crawl names it (lower-cased ASCII host),
 * the URL absolute http(s) without credentials or fragment. Throws SellersLocationError naming `where`.
 */
export function checkLocation(adSystem: string, url: string, where: string): [string, string] {
  const host = toAsciiHost(adSystem);
  if (!isValidDnsName(host)) throw new SellersLocationError(`${where}: ${JSON.stringify(adSystem)} is not an ad system domain`);
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new SellersLocationError(`${where}: ${JSON.stringify(url)} is not an absolute URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new SellersLocationError(`${where}: ${JSON.stringify(url)} is not an http(s) URL`);
  if (u.username || u.password) throw new SellersLocationError(`${where}: ${JSON.stringify(url)} carries credentials`);
  u.hash = '';
  return [host, u.href];
}

/** `AD_SYSTEM=URL` (the flag's form; `where` names it in errors, e.g. a config file's key). */
export function parseLocationFlag(spec: string, where = '--sellers-location'): [string, string] {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new SellersLocationError(`${where} must be AD_SYSTEM=URL, got ${JSON.stringify(spec)}`);
  return checkLocation(spec.slice(0, eq), spec.slice(eq + 1), where);
}

/** The kinds of source an entry of the shipped table names. */
export const LOCATION_SOURCE_KINDS = ['ad system', 'third party'] as const;

/**
 * The table's text: `ad_system<TAB>url[<TAB>source[<TAB>kind]]` per line, `#` comments and blank
 * lines skipped; an ad system may have several lines, asked in their order. `requireSource`: the
 * shipped table says where each entry comes from, and what kind of source that is.
 * Returns ad system → its URLs in order (the first spelling of each URL).
 */
export function parseLocationTable(text: string, where: string, requireSource = false): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const lines = text.split(/\r\n|\r|\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const at = `${where}:${i + 1}`;
    const fields = line.split('\t').map((f) => f.trim());
    if (fields.length < 2 || fields[0] === '' || fields[1] === '') throw new SellersLocationError(`${at}: expected ad_system<TAB>url[<TAB>source[<TAB>kind]]`);
    if (requireSource && !fields[2]) throw new SellersLocationError(`${at}: the shipped table names a source for every entry`);
    const kind = fields[3];
    if (requireSource && !(LOCATION_SOURCE_KINDS as readonly (string | undefined)[]).includes(kind)) {
      throw new SellersLocationError(`${at}: the kind of source must be ${LOCATION_SOURCE_KINDS.map((k) => `'${k}'`).join(' or ')}, got ${JSON.stringify(kind ?? '')}`);
    }
    const [host, url] = checkLocation(fields[0]!, fields[1]!, at);
    const urls = out.get(host) ?? [];
    if (urls.includes(url)) throw new SellersLocationError(`${at}: ${host} ${url} is listed twice`);
    if (url === defaultSellersUrl(host)) throw new SellersLocationError(`${at}: ${url} is the spec's location, always asked first`);
    urls.push(url);
    out.set(host, urls);
  }
  return out;
}

/** Reads a locations file (the shipped table's format). */
export async function readLocationTable(file: string, requireSource = false): Promise<Map<string, string[]>> {
  return parseLocationTable(await readFile(file, 'utf8'), file, requireSource);
}

/**
 * What the run manifest records of the table the overrides were laid on, so that a night can be
 * reproduced: the file (`data/sellers-locations.tsv` for the shipped one), the sha256 of its bytes
 * and its number of entries. The table has no version of its own: its hash is its identity.
 */
export interface LocationTableInfo {
  file: string;
  sha256: string;
  entries: number;
}

export class SellersLocations {
  private constructor(
    private readonly table: ReadonlyMap<string, readonly string[]>,
    /** The table the overrides were laid on; null when none was. */
    readonly base: LocationTableInfo | null = null,
  ) {}

  /**
   * The shipped table (or `file`) with `overrides` (already checked: `checkLocation`) on top: an
   * override replaces the table's URLs for its ad system.
   */
  static async load(overrides: Readonly<Record<string, string>> = {}, file: string | null = shippedLocationsFile()): Promise<SellersLocations> {
    const own = Object.entries(overrides).map(([k, v]) => [k, [v]] as const);
    if (file === null) return new SellersLocations(new Map(own));
    const bytes = await readFile(file);
    const table = parseLocationTable(bytes.toString('utf8'), file, true);
    const entries = [...table.values()].reduce((n, urls) => n + urls.length, 0);
    const base = { file: file === shippedLocationsFile() ? 'data/sellers-locations.tsv' : file, sha256: createHash('sha256').update(bytes).digest('hex'), entries };
    for (const [k, v] of own) table.set(k, [...v]);
    return new SellersLocations(table, base);
  }

  static of(entries: Readonly<Record<string, string>>): SellersLocations {
    return new SellersLocations(new Map(Object.entries(entries).map(([k, v]) => [k, [v]])));
  }

  /**
   * Where the crawl asks for this ad system's sellers.json, in order: the spec's location
   * (sellers.json 1.0: the root of the ad system's domain), then the table's, until one gives a
   * readable file.
   */
  candidatesFor(adSystem: string): string[] {
    return [defaultSellersUrl(adSystem), ...(this.table.get(adSystem) ?? [])];
  }
}
