import type { FetchKind, FetchOutcome, ResponseMeta } from '../src/fetch/index.js';
import { absentFreshUntil, carryForwardAllowed, ageDays, freshUntil, isFresh } from '../src/resolve/freshness.js';
import { statusFromFetch } from '../src/resolve/file-status.js';
import type { PreviousFile } from '../src/store/previous-snapshot.js';
import type { Obtained as ObtainedHow } from '../schemas/tables.js';
import type { CrawlContext, Rows, RowScope } from './context.js';

/**
 * How a file's body is obtained (ads.txt 1.1 §3.1 and §3.6, RFC 9309 §2.4). By default every file
 * is asked for every night, conditionally where the earlier snapshot has validators, so that a
 * snapshot dated D says what each site served on D:
 * - `fetched`: today's request answered (a body, a 404, an error);
 * - `revalidated`: a conditional request answered 304: the earlier body is read again;
 * - `carried_forward`: the request failed and the earlier copy may stand in for it;
 * - `reused`: only with `--reuse-fresh` (and always for store pages, read at most weekly): the
 *   earlier copy is still fresh (its Cache-Control/Expires lifetime, or 7 days for ads.txt, at
 *   most 24 h for robots.txt), so no request is made; an earlier 404 still fresh is taken as
 *   today's answer too.
 * In every case the body is streamed through the same parser, so the tables always hold the
 * snapshot's full data, and the file's status is what that content is.
 */
export interface Obtained<T> {
  /** The request made, or null when the earlier copy was fresh. */
  outcome: FetchOutcome<T> | null;
  /** What the parser returned (from the network or from the stored earlier body). */
  body: T | null;
  obtained: ObtainedHow;
  previous: PreviousFile | null;
  /** Columns of the `files` row that depend on where the body came from. */
  file: {
    url: string | null;
    httpStatus: number | null;
    contentType: string | null;
    bytes: number | null;
    sha256: string | null;
    etag: string | null;
    lastModified: string | null;
    fetchedAt: Date | null;
    freshUntil: Date | null;
    ageDays: number | null;
    /** The body used was cut at the byte cap (today's, or the earlier copy's). */
    truncated: boolean;
    /** files.status decided by the fetch alone (404, unreachable…), or null when a body was read. */
    fetchStatus: ReturnType<typeof statusFromFetch>;
  };
}

/**
 * What the earlier snapshot lets this run do without a request (only with --reuse-fresh): reuse a
 * still-fresh body (`reuse`), or take a still-fresh 404 as the answer (`absent`); `fetch` otherwise.
 */
type EarlierUse = 'reuse' | 'absent' | 'fetch';

/** The earlier snapshot kept this file's body (it can be replayed, revalidated or carried forward). */
function hasKeptBody(prev: PreviousFile | null): prev is PreviousFile & { sha256: string; fetchedAt: Date } {
  return prev !== null && prev.sha256 !== null && prev.hasBody && prev.fetchedAt !== null;
}

function earlierUse(ctx: CrawlContext, prev: PreviousFile | null, kind: FetchKind): EarlierUse {
  const inc = ctx.incremental;
  if (!inc || prev === null || prev.fetchedAt === null) return 'fetch';
  // Store pages are read at most weekly whatever the option (spec-decisions: politeness to the
  // stores; a listing's developer URL is not what a night's series measures).
  if (!inc.reuseFresh && kind !== 'store_page') return 'fetch';
  if (hasKeptBody(prev)) {
    // Store pages have no files row, so no recorded fresh_until: their week counts from the earlier fetch.
    const until = prev.freshUntil ?? (kind === 'store_page' ? freshUntil('store_page', prev.fetchedAt, { cacheControl: null, expires: null }) : null);
    return isFresh(until, inc.now) ? 'reuse' : 'fetch';
  }
  // A 404 is an answer too, with a lifetime (RFC 9111 §4.2.2: heuristically cacheable; ads.txt
  // 1.1 §3.6's 7 days, RFC 9309 §2.4's 24 h): within it the site is not asked again.
  return prev.status === 'not_found' && isFresh(prev.freshUntil, inc.now) ? 'absent' : 'fetch';
}

/** The earlier snapshot's entry for this file (null in a first run or when it had none). */
export async function previousOf(ctx: CrawlContext, subject: string, kind: FetchKind): Promise<PreviousFile | null> {
  return ctx.incremental ? ctx.incremental.previous.get(subject, kind) : null;
}

/**
 * Whether obtaining this file will need the network (an incremental run may answer it from the
 * earlier snapshot entry `prev`, from previousOf). Lets a job close its connection to a host
 * after the last request it will really make there.
 */
export function willRequest(ctx: CrawlContext, prev: PreviousFile | null, kind: FetchKind): boolean {
  return earlierUse(ctx, prev, kind) === 'fetch';
}

/**
 * Reads a body into rows. `out` is a scope of its own for this one reading: its rows count only
 * if the body is read to its end (or to the byte cap) and is the one the file row describes.
 */
export type BodyConsumer<T> = (body: AsyncIterable<Uint8Array>, meta: ResponseMeta | null, out: Rows) => Promise<T>;

export async function obtainFile<T>(
  ctx: CrawlContext,
  req: { url: string; kind: FetchKind; subject: string; closeConnection?: boolean; previous?: PreviousFile | null },
  consume: BodyConsumer<T>,
): Promise<Obtained<T>> {
  const inc = ctx.incremental;
  // `previous`: the caller looked the entry up already (previousOf); otherwise it is looked up here.
  const prev = req.previous !== undefined ? req.previous : await previousOf(ctx, req.subject, req.kind);
  const reusable = hasKeptBody(prev);

  const use = earlierUse(ctx, prev, req.kind);
  if (use === 'reuse') {
    const body = await replay(ctx, prev!, consume);
    if (body !== null) return reused('reused', prev!, body, null, inc!.now);
  } else if (use === 'absent') {
    return knownAbsent(prev!, inc!.now);
  }

  const validators = inc && reusable ? { etag: prev.etag, lastModified: prev.lastModified } : undefined;
  const writer = ctx.bodies?.writer() ?? null;
  // The fetch stack may read more than one body (a retry, the HTTP fallback): only the last
  // reading's rows can count, and only when it completed.
  let reading: RowScope | null = null;
  const outcome = await ctx.fetcher.fetch({ ...req, validators, signal: ctx.signal }, async (stream, meta) => {
    reading?.discard();
    reading = ctx.out.begin();
    const tee = writer ? teeInto(stream, writer) : stream;
    return consume(tee, meta, reading);
  });
  ctx.out.fetches(outcome);
  const todays = reading as RowScope | null;
  const bodyRead = outcome.body !== null && !outcome.notModified;
  if (writer) {
    if (bodyRead) await writer.finish().catch(() => writer.abort());
    else await writer.abort();
  }

  if (inc && reusable && outcome.notModified) {
    todays?.discard();
    const body = await replay(ctx, prev, consume);
    if (body !== null) return revalidated(req.kind, prev, body, outcome, inc.now);
  }
  const fetchStatus = statusFromFetch(outcome.status, outcome.error);
  if (inc && reusable && fetchStatus !== null && carryForwardAllowed(req.kind, prev.fetchedAt, inc.now, { failure: { status: fetchStatus, httpStatus: outcome.status }, earlierFreshUntil: prev.freshUntil })) {
    const body = await replay(ctx, prev, consume);
    if (body !== null) {
      // Today's body (one cut at the cap, say) is not the one the file row describes: its rows go.
      todays?.discard();
      return reused('carried_forward', prev, body, outcome, inc.now);
    }
  }
  // Rows only from a body read to its end (or to the byte cap: `too_large`, never valid).
  if (bodyRead) todays?.commit();
  else todays?.discard();
  // fetches.started_at is on the run's clock (the fetcher's `recordNow`), like files.fetched_at.
  const fetchedAt = outcome.rows[0]?.started_at ?? new Date(ctx.clock.now());
  return fetched(req.kind, prev, outcome, fetchStatus, fetchedAt);
}

/** Today's answer stands (a body, a 404, or a failure with nothing earlier to fall back on). */
function fetched<T>(kind: FetchKind, prev: PreviousFile | null, outcome: FetchOutcome<T>, fetchStatus: ReturnType<typeof statusFromFetch>, fetchedAt: Date): Obtained<T> {
  return {
    outcome,
    body: outcome.body,
    obtained: 'fetched',
    previous: prev,
    file: {
      url: outcome.body !== null ? outcome.finalUrl : null,
      httpStatus: outcome.status,
      contentType: outcome.contentType,
      bytes: outcome.bytes,
      sha256: outcome.sha256,
      etag: outcome.etag,
      lastModified: outcome.lastModified,
      fetchedAt,
      // A body, or a definitive "no file" (404, at most the default lifetime), has a lifetime;
      // other failures are asked again next run.
      freshUntil:
        outcome.body !== null ? freshUntil(kind, fetchedAt, { cacheControl: outcome.cacheControl, expires: outcome.expires })
        : fetchStatus === 'not_found' ? absentFreshUntil(kind, fetchedAt, { cacheControl: outcome.cacheControl, expires: outcome.expires })
        : null,
      ageDays: null,
      truncated: outcome.truncated,
      fetchStatus,
    },
  };
}

/** The earlier copy, confirmed by a 304 as of now: as good as freshly fetched (ads.txt 1.1 §3.1 windows count from here). */
function revalidated<T>(kind: FetchKind, prev: PreviousFile, body: T, outcome: FetchOutcome<T>, now: Date): Obtained<T> {
  const r = reused('revalidated', prev, body, outcome, now);
  r.file.httpStatus = outcome.status;
  r.file.etag = outcome.etag ?? prev.etag;
  r.file.lastModified = outcome.lastModified ?? prev.lastModified;
  r.file.fetchedAt = now;
  r.file.ageDays = null;
  r.file.freshUntil = freshUntil(kind, now, { cacheControl: outcome.cacheControl, expires: outcome.expires });
  return r;
}

/** The earlier copy stands: its URL, answer, body and validators, as of when it was fetched. */
function reused<T>(obtained: ObtainedHow, prev: PreviousFile, body: T | null, outcome: FetchOutcome<T> | null, now: Date): Obtained<T> {
  return {
    outcome,
    body,
    obtained,
    previous: prev,
    file: {
      url: prev.url,
      httpStatus: prev.httpStatus,
      contentType: prev.contentType,
      bytes: prev.bytes,
      sha256: prev.sha256,
      etag: prev.etag,
      lastModified: prev.lastModified,
      fetchedAt: prev.fetchedAt,
      freshUntil: prev.freshUntil,
      ageDays: Math.round(ageDays(prev.fetchedAt!, now) * 1000) / 1000,
      // A copy that was cut at the cap stays cut: never valid, whenever it is read again.
      truncated: prev.truncated,
      fetchStatus: null,
    },
  };
}

/** The earlier snapshot's fresh 404, reused without a request: still `not_found`, with its fetch time and age. */
function knownAbsent<T>(prev: PreviousFile, now: Date): Obtained<T> {
  const r = reused<T>('reused', prev, null, null, now);
  r.file.url = null;
  r.file.sha256 = null;
  r.file.fetchStatus = 'not_found';
  return r;
}

/**
 * Streams the stored earlier body through the parser; null when it is gone from the store (or
 * cannot be read to its end: then none of its rows count either).
 */
async function replay<T>(ctx: CrawlContext, prev: PreviousFile, consume: BodyConsumer<T>): Promise<T | null> {
  const stream = await ctx.incremental!.earlierBodies.open(prev.sha256!);
  if (!stream) return null;
  const rows = ctx.out.begin();
  try {
    const body = await consume(stream, null, rows);
    rows.commit();
    return body;
  } catch (err) {
    rows.discard();
    throw err;
  }
}

async function* teeInto(stream: AsyncIterable<Uint8Array>, writer: { push(c: Uint8Array): void | Promise<void> }): AsyncGenerator<Uint8Array> {
  for await (const chunk of stream) {
    const p = writer.push(chunk);
    if (p) await p;
    yield chunk;
  }
}
