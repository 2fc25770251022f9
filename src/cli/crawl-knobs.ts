import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CRAWL_LIMITS, DEFAULT_CONCURRENCY } from '../../pipelines/crawl-options.js';
import { SELLERS_DEFAULTS } from '../../pipelines/sellers-rounds.js';
import { FETCH_DEFAULTS, fetchKinds, resolveFetchConfig, type FetchKind, type FetchOptions } from '../fetch/index.js';
import { checkLocation, parseLocationFlag, readLocationTable } from '../resolve/sellers-location.js';
import { LIST_CONFIG_KEYS, resolveListKnobs, type ListKnobs } from './list-knobs.js';
import { resolveRunLockOptions, RUN_LOCK_DEFAULTS, type RunLockOptions } from '../store/run-lock.js';
import { UsageError } from './usage-error.js';

/**
 * The crawl's operating knobs (docs/guide/operating.md): time-outs and byte caps per file kind, retries and
 * holds, DNS cache, concurrency and politeness, from flags and from `--config FILE` (a JSON
 * object whose keys are the flags' names; a flag given on the command line wins over the file).
 * Everything is checked here, at the edge, with bounds, before the crawl starts; the run
 * manifest echoes the values used (src/fetch/knobs-manifest.ts). docs/guide/operating.md is the
 * table of them.
 */

type Values = Record<string, string | boolean | Array<string | boolean> | undefined>;

const HOUR_MS = 3_600_000;
const GiB = 2 ** 30;

/** A number knob: the flag, the FetchOptions key it sets (null: a crawl option) and its bounds. */
interface NumberKnob {
  flag: string;
  key: keyof FetchOptions | null;
  min: number;
  max: number;
}

/** The fetch layer's defaults, stated once in src/fetch/config.ts: the usage text reads them from there. */
const D = resolveFetchConfig({ resolver: async () => [] });
/** The same defaults for the other usage texts of the crawl (cli/crawl-usage.ts). */
export { D as FETCH_CONFIG_DEFAULTS };
const KiB = 1024;
const size = (n: number) => (n % 2 ** 20 === 0 ? `${n / 2 ** 20} MiB` : `${n / KiB} KiB`);

export const NUMBER_KNOBS: readonly NumberKnob[] = [
  { flag: 'concurrency', key: null, min: 1, max: 4096 },
  { flag: 'per-host', key: 'perHost', min: 1, max: 64 },
  { flag: 'per-ip', key: 'perIp', min: 1, max: 4096 },
  { flag: 'connect-timeout', key: 'connectTimeoutMs', min: 1, max: HOUR_MS },
  { flag: 'unresponsive-after', key: 'unresponsiveAfter', min: 0, max: 100 },
  { flag: 'headers-timeout', key: 'headersTimeoutMs', min: 1, max: HOUR_MS },
  { flag: 'retries', key: 'retries', min: 0, max: 10 },
  { flag: 'retry-base', key: 'retryBaseMs', min: 0, max: HOUR_MS },
  { flag: 'retry-max', key: 'retryMaxMs', min: 0, max: HOUR_MS },
  { flag: 'max-retry-after', key: 'maxRetryAfterMs', min: 0, max: HOUR_MS },
  { flag: 'wall-hold', key: 'wallHoldMs', min: 0, max: HOUR_MS },
  { flag: 'ip-backoff', key: 'ipBackoffMs', min: 0, max: HOUR_MS },
  { flag: 'dns-cache-size', key: 'dnsCacheSize', min: 1, max: 10_000_000 },
  { flag: 'dns-ttl', key: 'dnsTtlMs', min: 0, max: 24 * HOUR_MS },
  { flag: 'dns-negative-ttl', key: 'dnsNegativeTtlMs', min: 0, max: 24 * HOUR_MS },
  { flag: 'keep-alive', key: 'keepAliveTimeoutMs', min: 1, max: HOUR_MS },
];

/** Per-kind knobs: `--timeout [KIND=]MS`, `--max-bytes [KIND=]N` (repeatable; no KIND = every kind). */
const KIND_KNOBS = [
  { flag: 'timeout', key: 'totalTimeoutMs', min: 1, max: 24 * HOUR_MS },
  { flag: 'max-bytes', key: 'maxBytes', min: 1, max: 4 * GiB },
] as const;

/** Keys the config file may also hold that other flags own (passed through as they are given). */
const PASS_THROUGH = { 'user-agent': 'userAgent', 'dns-server': 'dnsServers', 'dns-timeout': 'dnsTimeoutMs' } as const;

/** The sellers.json knobs (where ad systems publish, how deep to follow intermediaries), flags of the crawl command that the config file may also hold. */
const SELLERS_NUMBER_KNOBS = [
  { flag: 'sellers-depth', key: 'depth', min: 0, max: CRAWL_LIMITS.sellersDepth },
  { flag: 'max-intermediaries', key: 'maxIntermediaries', min: 0, max: CRAWL_LIMITS.maxIntermediaries },
] as const;
const SELLERS_KEYS = ['sellers-location', 'sellers-locations', ...SELLERS_NUMBER_KNOBS.map((k) => k.flag)] as const;

/** The run lock's heartbeat and stale bound (src/store/run-lock.ts), flags the config file may also hold. */
const LOCK_KNOBS = [
  { flag: 'lock-heartbeat', key: 'heartbeatMs', min: 100, max: 10 * 60_000 },
  { flag: 'lock-stale', key: 'staleMs', min: 1_000, max: HOUR_MS },
] as const;

/** For parseCommandArgs: the flags this module reads (concurrency, per-host, per-ip included). */
export const KNOB_FLAGS = {
  config: { type: 'string' },
  ...Object.fromEntries(NUMBER_KNOBS.map((k) => [k.flag, { type: 'string' }])),
  timeout: { type: 'string', multiple: true },
  'max-bytes': { type: 'string', multiple: true },
  ...Object.fromEntries(LOCK_KNOBS.map((k) => [k.flag, { type: 'string' }])),
} as const satisfies Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

export const KNOBS_USAGE = `Operating knobs (docs/guide/operating.md; all echoed in the run manifest under "fetch"):
  --config FILE           JSON object of these knobs by flag name, e.g. {"per-ip": 8,
                          "timeout": {"ads.txt": 20000}, "retries": 1}; flags win over the file.
                          It may also hold user-agent, dns-server, dns-timeout and the sellers.json
                          options: "sellers-location" ({"AD_SYSTEM": "URL"} or ["AD_SYSTEM=URL"]),
                          "sellers-locations" (a path, relative to the config file), "sellers-depth",
                          "max-intermediaries". Locations merge by ad system: the file's table, its
                          entries, then --sellers-locations, then --sellers-location. Named lists:
                          "list-provider-url" ({"tranco": "URL"}) and "list-cache" (a path)
  --concurrency N         subjects crawled at once (default ${DEFAULT_CONCURRENCY}, at most 4096)
  --per-host N            requests at once per host (default ${FETCH_DEFAULTS.perHost}, at most 64)
  --per-ip N              requests at once per resolved IP address (default ${FETCH_DEFAULTS.perIp}, at most 4096)
  --connect-timeout MS    TCP + TLS connect deadline (default ${D.connectTimeoutMs})
  --unresponsive-after N  connect time-outs in a row (the SYN unanswered) after which an address is not
                          tried again for 10 minutes: fetches.error 'unresponsive' (default ${D.unresponsiveAfter};
                          0 = try every connect)
  --headers-timeout MS    from request sent to response headers, per hop (default ${D.headersTimeoutMs})
  --timeout [KIND=]MS     whole-chain budget per file kind (repeatable; default ${D.totalTimeoutMs['ads.txt']}, sellers.json ${D.totalTimeoutMs['sellers.json']})
  --max-bytes [KIND=]N    body byte cap per file kind, after decompression (repeatable; default
                          ads.txt/app-ads.txt ${size(D.maxBytes['ads.txt'])}, robots.txt ${size(D.maxBytes['robots.txt'])}, sellers.json ${size(D.maxBytes['sellers.json'])}, store_page ${size(D.maxBytes.store_page)},
                          tdmrep.json ${size(D.maxBytes['tdmrep.json'])}, llms.txt ${size(D.maxBytes['llms.txt'])}, rsl ${size(D.maxBytes.rsl)}, home_page ${size(D.maxBytes.home_page)})
  --retries N             retries of a reset, 408, 429, 502, 503, 504 per hop (default ${D.retries}, at most 10)
  --retry-base MS, --retry-max MS  backoff between retries, doubling with jitter (default ${D.retryBaseMs}, ${D.retryMaxMs})
  --max-retry-after MS    longest Retry-After waited for; longer ends the request (default ${D.maxRetryAfterMs})
  --wall-hold MS          hold on a host that answered with a bot wall (default ${D.wallHoldMs})
  --ip-backoff MS         hold on the address behind a 429 or a wall (default ${D.ipBackoffMs})
  --dns-cache-size N      DNS answers kept, LRU (default ${D.dnsCacheSize}); --dns-ttl MS, --dns-negative-ttl MS
                          (default ${D.dnsTtlMs}, ${D.dnsNegativeTtlMs})
  --keep-alive MS         idle time of a kept-alive connection (default ${D.keepAliveTimeoutMs})
  --lock-heartbeat MS     how often a live attempt touches its run's lock (default ${RUN_LOCK_DEFAULTS.heartbeatMs})
  --lock-stale MS         a lock untouched this long is stale whoever holds it, and the next attempt
                          takes it over (default ${RUN_LOCK_DEFAULTS.staleMs}; at least 3 heartbeats). Both are
                          written into the lock (a judge uses its holder's bound) and the run manifest
                          (options.lock); a retry sooner than the bound after a holder on another
                          machine died exits 75 (docs/guide/scale.md)`;

export interface SellersKnobs {
  /** Ad system → URL, checked and normalised (`checkLocation`), on top of the shipped table. */
  locations: Record<string, string>;
  depth: number;
  maxIntermediaries: number;
}

export interface Knobs {
  concurrency: number;
  fetch: FetchOptions;
  sellers: SellersKnobs;
  /** Named lists: provider base URLs and the list cache (src/cli/list-knobs.ts). */
  lists: ListKnobs;
  /** The run lock's heartbeat and stale bound, checked (stale ≥ 3 heartbeats). */
  lock: Required<RunLockOptions>;
  /** The config file read, or null. */
  configFile: string | null;
}

function intOf(name: string, v: unknown, min: number, max: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return n;
}

/** `KIND=N` or `N` entries (flags) or a number / { KIND: N } object (config) → a partial per-kind map. */
function perKind(name: string, v: unknown, min: number, max: number): Partial<Record<FetchKind, number>> {
  const out: Partial<Record<FetchKind, number>> = {};
  const set = (kind: string | null, n: unknown) => {
    if (kind !== null && !fetchKinds.includes(kind as FetchKind)) throw new UsageError(`${name}: unknown file kind ${JSON.stringify(kind)} (kinds: ${fetchKinds.join(', ')})`);
    const value = intOf(kind === null ? name : `${name} ${kind}`, n, min, max);
    for (const k of kind === null ? fetchKinds : [kind as FetchKind]) out[k] = value;
  };
  if (typeof v === 'number') set(null, v);
  else if (Array.isArray(v)) {
    for (const e of v) {
      const s = String(e);
      const eq = s.lastIndexOf('=');
      if (eq < 0) set(null, s);
      else set(s.slice(0, eq), s.slice(eq + 1));
    }
  } else if (v !== null && typeof v === 'object') for (const [k, n] of Object.entries(v)) set(k, n);
  else throw new UsageError(`${name} must be a number or an object of file kind → number, got ${JSON.stringify(v)}`);
  return out;
}

/** Reads `--config FILE`: a JSON object whose keys are known flag names. */
export async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--config ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config ${file}: not JSON (${(err as Error).message})`);
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new UsageError(`--config ${file}: must hold a JSON object of knobs by flag name`);
  const known = new Set<string>([...NUMBER_KNOBS.map((k) => k.flag), ...KIND_KNOBS.map((k) => k.flag), ...Object.keys(PASS_THROUGH), ...SELLERS_KEYS, ...LIST_CONFIG_KEYS, ...LOCK_KNOBS.map((k) => k.flag)]);
  const unknown = Object.keys(obj).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new UsageError(`--config ${file}: unknown knob${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: ${[...known].sort().join(', ')})`);
  return obj as Record<string, unknown>;
}

/** The knobs from `--config FILE` and the flags (flags win), checked. Throws UsageError naming the knob. */
export async function resolveKnobs(values: Values): Promise<Knobs> {
  const configFile = typeof values.config === 'string' ? values.config : null;
  const file = configFile === null ? {} : await readConfigFile(configFile);
  const where = (flag: string, fromFlag: boolean) => (fromFlag ? `--${flag}` : `--config ${configFile}: ${flag}`);
  const fetch: Record<string, unknown> = {};
  let concurrency = DEFAULT_CONCURRENCY;
  for (const k of NUMBER_KNOBS) {
    const fromFlag = values[k.flag] !== undefined;
    const raw = fromFlag ? values[k.flag] : file[k.flag];
    if (raw === undefined) continue;
    const n = intOf(where(k.flag, fromFlag), raw, k.min, k.max);
    if (k.key === null) concurrency = n;
    else fetch[k.key] = n;
  }
  for (const k of KIND_KNOBS) {
    // The file's map first, then the flags' entries over it (a flag for one kind keeps the file's others).
    const merged = { ...(file[k.flag] !== undefined ? perKind(where(k.flag, false), file[k.flag], k.min, k.max) : {}), ...(values[k.flag] !== undefined ? perKind(where(k.flag, true), values[k.flag], k.min, k.max) : {}) };
    if (Object.keys(merged).length > 0) fetch[k.key] = merged;
  }
  for (const [flag, key] of Object.entries(PASS_THROUGH)) {
    const v = file[flag];
    if (v === undefined || values[flag] !== undefined) continue;
    if (flag === 'dns-server') {
      if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new UsageError(`${where(flag, false)} must be a list of ADDR[:PORT] strings`);
      fetch[key] = v;
    } else if (flag === 'dns-timeout') fetch[key] = intOf(where(flag, false), v, 1, HOUR_MS);
    else if (typeof v !== 'string' || v.trim() === '' || /[\r\n]/.test(v)) throw new UsageError(`${where(flag, false)} must be a non-empty single-line string`);
    else fetch[key] = v;
  }
  return { concurrency, fetch: fetch as FetchOptions, sellers: await resolveSellersKnobs(values, file, configFile), lists: resolveListKnobs(values, file, configFile), lock: resolveLockKnobs(values, file, where), configFile };
}

function resolveLockKnobs(values: Values, file: Record<string, unknown>, where: (flag: string, fromFlag: boolean) => string): Required<RunLockOptions> {
  const lock: RunLockOptions = {};
  for (const k of LOCK_KNOBS) {
    const fromFlag = values[k.flag] !== undefined;
    const raw = fromFlag ? values[k.flag] : file[k.flag];
    if (raw !== undefined) lock[k.key] = intOf(where(k.flag, fromFlag), raw, k.min, k.max);
  }
  try {
    return resolveRunLockOptions(lock);
  } catch (err) {
    throw new UsageError(`--lock-stale, --lock-heartbeat: ${(err as Error).message}`);
  }
}

/**
 * `--sellers-depth`, `--max-intermediaries`, `--sellers-locations FILE`, `--sellers-location
 * AD_SYSTEM=URL` and the same keys of the config file, with the flags' checks. Numbers: a flag wins
 * over the file. Locations merge by ad system, each layer over the one before: the file's
 * `sellers-locations` table, the file's `sellers-location` entries, the `--sellers-locations`
 * table, the `--sellers-location` flags.
 */
async function resolveSellersKnobs(values: Values, file: Record<string, unknown>, configFile: string | null): Promise<SellersKnobs> {
  const inFile = (key: string) => `--config ${configFile}: ${key}`;
  const out: SellersKnobs = { locations: {}, depth: SELLERS_DEFAULTS.depth, maxIntermediaries: SELLERS_DEFAULTS.maxIntermediaries };
  for (const k of SELLERS_NUMBER_KNOBS) {
    const fromFlag = values[k.flag] !== undefined;
    const raw = fromFlag ? values[k.flag] : file[k.flag];
    if (raw !== undefined) out[k.key] = intOf(fromFlag ? `--${k.flag}` : inFile(k.flag), raw, k.min, k.max);
  }
  const table = async (where: string, f: string) => {
    try {
      for (const [k, v] of await readLocationTable(f)) {
        // The run's entries are one URL per ad system (asked after the spec's location, instead of the shipped table's).
        if (v.length > 1) throw new UsageError(`${where} ${f}: ${k} has ${v.length} URLs; a run's table gives one per ad system`);
        out.locations[k] = v[0]!;
      }
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const e = err as NodeJS.ErrnoException;
      throw new UsageError(e.code && e.code !== 'SELLERS_LOCATION_INVALID' ? `${where} ${f}: ${e.code}` : e.message);
    }
  };
  const entry = (fn: () => [string, string]) => {
    try {
      const [k, v] = fn();
      out.locations[k] = v;
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  };
  if (configFile !== null) {
    const t = file['sellers-locations'];
    if (t !== undefined) {
      if (typeof t !== 'string' || t.trim() === '') throw new UsageError(`${inFile('sellers-locations')} must be a file path (relative to the config file)`);
      await table(inFile('sellers-locations'), path.resolve(path.dirname(configFile), t));
    }
    const l = file['sellers-location'];
    if (Array.isArray(l)) {
      for (const spec of l) {
        if (typeof spec !== 'string') throw new UsageError(`${inFile('sellers-location')} entries must be "AD_SYSTEM=URL" strings, got ${JSON.stringify(spec)}`);
        entry(() => parseLocationFlag(spec, inFile('sellers-location')));
      }
    } else if (l !== null && typeof l === 'object') {
      for (const [k, v] of Object.entries(l)) {
        if (typeof v !== 'string') throw new UsageError(`${inFile('sellers-location')}: the URL of ${JSON.stringify(k)} must be a string, got ${JSON.stringify(v)}`);
        entry(() => checkLocation(k, v, inFile('sellers-location')));
      }
    } else if (l !== undefined) throw new UsageError(`${inFile('sellers-location')} must be an object {"AD_SYSTEM": "URL"} or a list of "AD_SYSTEM=URL"`);
  }
  const flagTable = values['sellers-locations'];
  if (typeof flagTable === 'string') await table('--sellers-locations', flagTable);
  const flagEntries = values['sellers-location'];
  for (const spec of Array.isArray(flagEntries) ? flagEntries : flagEntries === undefined ? [] : [flagEntries]) entry(() => parseLocationFlag(String(spec)));
  return out;
}
