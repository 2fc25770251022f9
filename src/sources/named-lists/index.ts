/**
 * A top list named by provider and date (`tranco:2026-11-20`, `crux:202610:de`…), resolved to a
 * file in the list cache that the ordinary list reader (src/sources/domain-list.ts) then reads.
 * A list is fetched once: the cache keeps every file with a record of what it is (provider,
 * selector, resolved date, list id, URL, bytes, sha256), and a moving selector (`latest`) is
 * resolved once per snapshot date, so that a resumed run, the stages of a sharded one and a
 * second run the same day read the very same list without a request. When the provider cannot be
 * reached, the newest cached list of the same selector stands in, and the record says so.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ProviderHttp, ListHttpError, ListUnreachableError } from './provider-http.js';
import { DEFAULT_PROVIDER_URLS, RADAR_TOKEN_ENV, resolveList, ListNotFoundError, type ResolvedList } from './providers.js';
import { parseListSelector, selectorText, type ListProvider, type ListSelector } from './selector.js';
import { replaceFileAtomically } from '../../util/atomic-file.js';

export { isNamedList, parseListSelector, ListSelectorError, LIST_PROVIDERS, type ListProvider } from './selector.js';
export { DEFAULT_PROVIDER_URLS, RADAR_TOKEN_ENV, TRANCO_WALK_BACK_DAYS, ListNotFoundError, ListConfigError } from './providers.js';
export { ListHttpError, ListUnreachableError } from './provider-http.js';

/** What the run manifest records of a named list (`named_list`). */
export interface NamedListRecord {
  provider: ListProvider;
  /** As given after the provider (`latest`, `2026-11-20`, `id:X`, `202610:de`). */
  selector: string;
  resolved_date: string | null;
  list_id: string | null;
  url: string;
  bytes: number;
  sha256: string;
  /** When the file was downloaded (ISO time). */
  fetched_at: string;
  note: string | null;
}

export interface NamedList {
  record: NamedListRecord;
  /** The cached file the list reader opens. */
  file: string;
  /** `targets.source`: the list as a researcher cites it. */
  sourceName: string;
  /** Read from the cache with no request. */
  fromCache: boolean;
  /** The provider was unreachable and an earlier cached list of the selector stands in. */
  offline: boolean;
}

export interface ResolveNamedListOptions {
  cacheDir: string;
  /** The day `latest` is resolved for (the snapshot date). */
  day: string;
  userAgent: string;
  /** Base URL per provider (`--list-provider-url`); the provider's paths are kept below it. */
  providerUrls?: Partial<Record<ListProvider, string>>;
  env?: NodeJS.ProcessEnv;
  /** An HTTP client to share (tests); one is made and closed otherwise. */
  http?: ProviderHttp;
}

export class NamedListError extends Error {
  readonly code: string = 'NAMED_LIST_FAILED';
}

/**
 * The provider could not be reached, or answered 429 or 5xx, and no cached list stands in: a
 * condition that passes (the CLI exits 75: run the same command again later).
 */
export class NamedListUnreachableError extends NamedListError {
  override readonly code = 'NAMED_LIST_UNREACHABLE';
}

export async function resolveNamedList(spec: string, o: ResolveNamedListOptions): Promise<NamedList> {
  const sel = parseListSelector(spec);
  const dir = path.join(o.cacheDir, sel.provider);
  const recordFile = path.join(dir, `${cacheKey(sel, o.day)}.json`);
  const cached = await readCached(dir, recordFile);
  if (cached) return done(cached, true, false);
  const http = o.http ?? new ProviderHttp({ userAgent: o.userAgent });
  try {
    const resolved = await resolveList(sel, { http, base: o.providerUrls?.[sel.provider] ?? DEFAULT_PROVIDER_URLS[sel.provider], day: o.day, env: o.env ?? process.env });
    const record = await fetchInto(http, sel, resolved, dir);
    // The record names its data file relative to the cache; a moving selector's for this day only (cacheKey).
    await replaceFileAtomically(recordFile, JSON.stringify({ ...record, file: path.basename(record.file) }, null, 2) + '\n');
    return done(record, false, false);
  } catch (err) {
    if (passes(err)) {
      const earlier = await newestCached(dir, sel);
      if (earlier) return done({ ...earlier, note: `${sel.provider} could not be reached (${(err as Error).message}): the list cached on ${earlier.fetched_at.slice(0, 10)} is used` }, true, true);
    }
    throw explain(err, sel);
  } finally {
    if (!o.http) await http.close();
  }
}

/** Downloads the list unless the cache has its file already (another selector named the same list). */
async function fetchInto(http: ProviderHttp, sel: ListSelector, r: ResolvedList, dir: string): Promise<NamedListRecord & { file: string }> {
  await mkdir(dir, { recursive: true });
  const dataFile = path.join(dir, `${r.fileKey}${r.ext}`);
  const base = { provider: sel.provider, selector: selectorText(sel), resolved_date: r.resolvedDate, list_id: r.listId, url: r.url, note: r.note };
  const known = (await readJson(path.join(dir, `${r.fileKey}.list.json`))) as { bytes: number; sha256: string; fetched_at: string } | null;
  if (known && (await sha256Of(dataFile)) === known.sha256) return { ...base, bytes: known.bytes, sha256: known.sha256, fetched_at: known.fetched_at, file: dataFile };
  const got = await http.download(sel.provider, r.url, dataFile, { headers: r.headers, minIntervalMs: r.spacingMs });
  const fetchedAt = new Date().toISOString();
  await replaceFileAtomically(path.join(dir, `${r.fileKey}.list.json`), JSON.stringify({ bytes: got.bytes, sha256: got.sha256, fetched_at: fetchedAt }) + '\n');
  return { ...base, bytes: got.bytes, sha256: got.sha256, fetched_at: fetchedAt, file: dataFile };
}

function done(record: NamedListRecord & { file: string }, fromCache: boolean, offline: boolean): NamedList {
  const { file, ...rec } = record;
  return { record: rec, file, sourceName: sourceName(rec), fromCache, offline };
}

/** `tranco:id:X (2026-11-20)`, `crux:202610:de`, `majestic:2026-11-26`, `radar:2026-11-20`. */
function sourceName(r: NamedListRecord): string {
  if (r.provider === 'tranco') return `tranco:id:${r.list_id}${r.resolved_date ? ` (${r.resolved_date})` : ''}`;
  if (r.provider === 'crux') return `crux:${r.selector}`;
  return `${r.provider}:${r.resolved_date}`;
}

function cacheKey(sel: ListSelector, day: string): string {
  const s = selectorText(sel).replace(/:/g, '-');
  // `latest` moves every day; a Tranco date may walk back today and be published tomorrow.
  const moving = sel.kind === 'latest' || (sel.provider === 'tranco' && sel.kind === 'date');
  return moving ? `${s}@${day}` : s;
}

/** The record and its file, when the file is whole (its sha256 as recorded). */
async function readCached(dir: string, recordFile: string): Promise<(NamedListRecord & { file: string }) | null> {
  const rec = (await readJson(recordFile)) as (NamedListRecord & { file?: unknown }) | null;
  if (!rec || typeof rec.file !== 'string') return null;
  const file = path.join(dir, path.basename(rec.file));
  return (await sha256Of(file)) === rec.sha256 ? { ...rec, file } : null;
}

/** The newest cached record of this selector on any day (a moving selector's earlier days). */
async function newestCached(dir: string, sel: ListSelector): Promise<(NamedListRecord & { file: string }) | null> {
  const prefix = `${selectorText(sel).replace(/:/g, '-')}@`;
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(prefix) && n.endsWith('.json')).sort().reverse();
  for (const n of names) {
    const r = await readCached(dir, path.join(dir, n));
    if (r) return r;
  }
  return null;
}

function explain(err: unknown, sel: ListSelector): Error {
  const what = `${sel.provider}:${selectorText(sel)}`;
  if (err instanceof ListHttpError && sel.provider === 'radar' && (err.status === 401 || err.status === 403)) {
    return new NamedListError(`${what}: Cloudflare refused the token in ${RADAR_TOKEN_ENV} (HTTP ${err.status})`);
  }
  if (err instanceof ListHttpError && passes(err)) return new NamedListUnreachableError(`${what}: the provider answered but could not serve the list now, and no cached copy exists (${err.message})`);
  if (err instanceof ListNotFoundError || err instanceof ListHttpError) return new NamedListError(`${what}: ${err.message}`);
  if (err instanceof ListUnreachableError) return new NamedListUnreachableError(`${what}: the provider could not be reached and no cached copy exists (${err.message})`);
  return err as Error;
}

/** The provider unreachable, busy (429) or failing (5xx): a cached list may stand in, or a later run succeed. */
function passes(err: unknown): err is ListUnreachableError | ListHttpError {
  return err instanceof ListUnreachableError || (err instanceof ListHttpError && (err.status >= 500 || err.status === 429));
}

async function readJson(file: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function sha256Of(file: string): Promise<string | null> {
  const h = createHash('sha256');
  try {
    for await (const c of createReadStream(file)) h.update(c as Buffer);
  } catch {
    return null;
  }
  return h.digest('hex');
}

