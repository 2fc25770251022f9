import { decodeBody, discardStream, peekHead } from './body-reader.js';
import { CHALLENGE_PEEK_BYTES, challengeFromBody, challengeFromHeaders, mayBeChallenge, type WallVendor } from './challenge.js';
import type { FetchConfig } from './config.js';
import { FetchCounters } from './fetch-counters.js';
import { discard, ipKeyOf } from './exchange.js';
import { headerValue, type HopPolicy, type OpenResponse, type ResponseHeaders } from './hop.js';
import type { Politeness } from './politeness.js';
import { backoffMs, isTransientStatus, parseRetryAfter } from './retry.js';
import type { Target } from './target.js';

/**
 * Walls and holds: the policy that tells a bot wall's page from the site's answer
 * (challenge.ts) and holds a host back (politeness.ts clocks) after a wall, a 429 or a 503.
 * Every wall met in a crawl is counted and held here, whether its headers gave it away
 * (`holdWalls`) or the first bytes of a 2xx page did (answer-body.ts calls `met`).
 */

export type HoldConfig = Pick<FetchConfig, 'wallHoldMs' | 'maxRetryAfterMs' | 'ipBackoffMs' | 'retryBaseMs' | 'retryMaxMs' | 'random' | 'now'>;

export class WallHolds {
  constructor(
    private readonly politeness: Politeness,
    private readonly config: HoldConfig,
    /** Where walls are counted, by vendor (the fetch stack's one sink). */
    readonly counters: FetchCounters = new FetchCounters(),
  ) {}

  /**
   * A wall answered for `target`: asking again gets the same page, so the host is held (its
   * Retry-After, else wallHoldMs, at most maxRetryAfterMs) and, briefly, the address behind it.
   */
  met(vendor: WallVendor, target: Target, retryAfterMs: number | null): void {
    this.counters.wall(vendor);
    const hold = Math.min(retryAfterMs ?? this.config.wallHoldMs, this.config.maxRetryAfterMs);
    this.politeness.backOff(target.host, hold, ipKeyOf(target), Math.min(hold, this.config.ipBackoffMs), `challenge:${vendor}`);
  }

  /**
   * RFC 6585 §4 / RFC 9110 §10.2.3: after a 429 or a 503 the server says when to come back. The
   * whole host is held (not just this URL): a server in trouble gets a rest from every request of
   * ours; after a 429 the address behind it too, briefly (a CDN address serves many other sites).
   * Without Retry-After the hold is the backoff of `attempt`. The next request waits it out in
   * politeness.enter().
   */
  transient(status: number, target: Target, retryAfterMs: number | null, attempt: number): void {
    const c = this.config;
    const hold = Math.min(retryAfterMs ?? backoffMs(attempt, c.retryBaseMs, c.retryMaxMs, c.random), c.maxRetryAfterMs);
    this.politeness.backOff(target.host, hold, ipKeyOf(target), status === 429 ? Math.min(hold, c.ipBackoffMs) : 0, String(status));
  }
}

/**
 * The policy: a wall (headers first, then a bounded look at the body of a status walls answer
 * with) ends the chain with `challenge`, its body discarded; a transient status sets a hold and
 * is passed on (retryTransient decides whether to ask again, and waits on its own).
 */
export function holdWalls(walls: WallHolds, now: () => number): HopPolicy {
  return (next) => async (hop) => {
    const a = await next(hop);
    const r = a.response;
    if (r === null || a.status === null) return a;
    const { status, headers } = a;
    const wall = challengeFromHeaders(status, headers ?? {}) ?? (mayBeChallenge(status) ? await peekWall(r, headers) : null);
    if (wall !== null) {
      // Held before the slots go back with the body, so no request to that host slips in between.
      walls.met(wall, r.target, parseRetryAfter(headers?.['retry-after'], now()));
      await discard(r);
      return { ...a, response: null, error: 'challenge' };
    }
    if (isTransientStatus(status)) walls.transient(status, r.target, parseRetryAfter(headers?.['retry-after'], now()), hop.attempt);
    return a;
  };
}

/**
 * Looks at the first bytes of a body (decoded) for a bot wall's markers, then lets the rest go.
 * The connection is not reused after an unread remainder; a bounded look is worth that.
 */
async function peekWall(r: OpenResponse, headers: ResponseHeaders | null): Promise<WallVendor | null> {
  const ct = (headerValue(headers, 'content-type') ?? '').toLowerCase();
  if (ct !== '' && !ct.includes('html')) return null; // the interstitials are HTML pages
  let decoded;
  try {
    decoded = decodeBody(r.res.body, headers?.['content-encoding']);
  } catch {
    await discard(r);
    return null;
  }
  // A body we only peek at may fail: judge what came.
  const head = await peekHead((decoded as AsyncIterable<Uint8Array>)[Symbol.asyncIterator](), CHALLENGE_PEEK_BYTES);
  discardStream(decoded);
  discardStream(r.res.body);
  r.finish();
  return challengeFromBody(Buffer.concat(head.chunks));
}
