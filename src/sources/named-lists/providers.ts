/**
 * Where each provider publishes its top list, and how a selector becomes one file to download.
 * What was checked, and where, is in docs/guide/crawling.md#top-lists-by-name:
 * - Tranco (tranco-list.eu): `GET /api/lists/date/{YYYY-MM-DD|latest}` and `GET /api/lists/id/{id}`
 *   answer JSON with `list_id`, `available`, `download`, `created_on`; the list itself is
 *   `GET /download/{id}/1000000`, `rank,domain` lines.
 * - CrUX top lists (github.com/zakird/crux-top-lists): `data/global/YYYYMM.csv.gz` and
 *   `data/country/{cc}/YYYYMM.csv.gz` below the raw base URL, `origin,rank` (rank buckets).
 * - Majestic Million (downloads.majestic.com): `majestic_million.csv`, a header
 *   `GlobalRank,TldRank,Domain,TLD,…`; one file, replaced daily.
 * - Cloudflare Radar: `GET /radar/datasets/{alias}` (alias `ranking_top_1000000`; `?date=`
 *   gives the latest dataset at that date), CSV, with `Authorization: Bearer <token>`.
 */
import type { ListProvider, ListSelector } from './selector.js';
import { ListHttpError, type ProviderHttp } from './provider-http.js';

export const DEFAULT_PROVIDER_URLS: Record<ListProvider, string> = {
  tranco: 'https://tranco-list.eu',
  crux: 'https://raw.githubusercontent.com/zakird/crux-top-lists/main',
  majestic: 'https://downloads.majestic.com',
  radar: 'https://api.cloudflare.com/client/v4',
};

/** The environment variable that holds the Cloudflare API token (the name Cloudflare's own tools read). */
export const RADAR_TOKEN_ENV = 'CLOUDFLARE_API_TOKEN';

/** Days a Tranco date not yet published walks back, one request a day, before giving up. */
export const TRANCO_WALK_BACK_DAYS = 7;

/** Tranco publishes no rate limit for its API; adsnap asks it at most once a second all the same. */
const TRANCO_SPACING_MS = 1000;

const RADAR_ALIAS = 'ranking_top_1000000';

/** What a selector resolved to: the file to download and what identifies it. */
export interface ResolvedList {
  /** The list's date as the provider states it (a day, or YYYY-MM for CrUX); null when it states none. */
  resolvedDate: string | null;
  listId: string | null;
  url: string;
  /** `.csv` or `.csv.gz`: how the cached file is named, so that the list reader opens it. */
  ext: '.csv' | '.csv.gz';
  /** Name of the cached file, unique per list. */
  fileKey: string;
  headers: Record<string, string>;
  spacingMs: number;
  /** A remark for the manifest and the operator (e.g. a date walked back). */
  note: string | null;
}

export class ListNotFoundError extends Error {
  readonly code = 'LIST_NOT_FOUND';
}

/** The run is not set up to read this list (a Radar list without its token): nothing is asked. */
export class ListConfigError extends TypeError {
  readonly code = 'LIST_CONFIG';
}

export interface ProviderContext {
  http: ProviderHttp;
  base: string;
  /** The day a moving selector (`latest`) is resolved for: the snapshot date. */
  day: string;
  env: NodeJS.ProcessEnv;
}

export async function resolveList(sel: ListSelector, c: ProviderContext): Promise<ResolvedList> {
  switch (sel.provider) {
    case 'tranco':
      return resolveTranco(sel, c);
    case 'crux': {
      const file = sel.country ? `data/country/${sel.country}/${sel.month}.csv.gz` : `data/global/${sel.month}.csv.gz`;
      const month = `${sel.month.slice(0, 4)}-${sel.month.slice(4)}`;
      return { resolvedDate: month, listId: null, url: join(c.base, file), ext: '.csv.gz', fileKey: sel.country ? `${sel.month}-${sel.country}` : sel.month, headers: {}, spacingMs: 0, note: null };
    }
    case 'majestic':
      // One file, replaced in place: its date is the day it was fetched.
      return { resolvedDate: c.day, listId: null, url: join(c.base, 'majestic_million.csv'), ext: '.csv', fileKey: c.day, headers: {}, spacingMs: 0, note: null };
    case 'radar': {
      const token = c.env[RADAR_TOKEN_ENV];
      if (!token) throw new ListConfigError(`radar lists need a Cloudflare API token with Radar read access in the environment variable ${RADAR_TOKEN_ENV}`);
      const date = sel.kind === 'date' ? sel.date : null;
      const url = join(c.base, `radar/datasets/${RADAR_ALIAS}`) + (date ? `?date=${date}` : '');
      return { resolvedDate: date ?? c.day, listId: RADAR_ALIAS, url, ext: '.csv', fileKey: date ?? `latest@${c.day}`, headers: { authorization: `Bearer ${token}`, accept: 'text/csv' }, spacingMs: 0, note: date ? null : `the latest ranking as of ${c.day}` };
    }
  }
}

interface TrancoMeta {
  list_id?: unknown;
  available?: unknown;
  created_on?: unknown;
}

async function resolveTranco(sel: Extract<ListSelector, { provider: 'tranco' }>, c: ProviderContext): Promise<ResolvedList> {
  const fromMeta = (m: TrancoMeta, note: string | null): ResolvedList => {
    const id = String(m.list_id);
    const created = typeof m.created_on === 'string' ? m.created_on.slice(0, 10) : null;
    return { resolvedDate: created, listId: id, url: join(c.base, `download/${encodeURIComponent(id)}/1000000`), ext: '.csv', fileKey: `id-${id}`, headers: {}, spacingMs: TRANCO_SPACING_MS, note };
  };
  if (sel.kind === 'id') {
    const m = await trancoMeta(c, `api/lists/id/${encodeURIComponent(sel.id)}`);
    if (m === null) throw new ListNotFoundError(`Tranco has no list with id ${sel.id}`);
    return fromMeta(m, null);
  }
  if (sel.kind === 'latest') {
    const m = await trancoMeta(c, 'api/lists/date/latest');
    if (m === null) throw new ListNotFoundError('Tranco gives no latest list');
    return fromMeta(m, null);
  }
  // A date not yet published (today's list appears in the day): the day before, up to the bound.
  for (let back = 0; back <= TRANCO_WALK_BACK_DAYS; back++) {
    const day = addDays(sel.date, -back);
    const m = await trancoMeta(c, `api/lists/date/${day}`);
    if (m === null) continue;
    const r = fromMeta(m, back === 0 ? null : `no Tranco list for ${sel.date} yet: walked back ${back} day${back > 1 ? 's' : ''} to the list of ${day}`);
    r.resolvedDate = day;
    return r;
  }
  throw new ListNotFoundError(`Tranco has no list for ${sel.date} nor for the ${TRANCO_WALK_BACK_DAYS} days before it`);
}

/** The list's metadata, or null when Tranco has none (404, or not `available`). */
async function trancoMeta(c: ProviderContext, path: string): Promise<TrancoMeta | null> {
  let m: unknown;
  try {
    m = await c.http.json('tranco', join(c.base, path), { minIntervalMs: TRANCO_SPACING_MS });
  } catch (err) {
    if (err instanceof ListHttpError && err.status === 404) return null;
    throw err;
  }
  const meta = (m ?? {}) as TrancoMeta;
  if (meta.available !== true) return null;
  // The id names the cached file: only what Tranco's ids are (letters and digits), never a path.
  if ((typeof meta.list_id !== 'string' && typeof meta.list_id !== 'number') || !/^[A-Za-z0-9]{1,32}$/.test(String(meta.list_id))) {
    throw new ListNotFoundError(`Tranco answered ${path} with a list id that is not one (${JSON.stringify(meta.list_id)})`);
  }
  return meta;
}

function join(base: string, rel: string): string {
  return `${base.replace(/\/+$/, '')}/${rel}`;
}

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}
