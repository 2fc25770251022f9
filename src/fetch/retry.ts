import type { FetchConfig } from './config.js';
import type { FetchErrorCode } from './errors.js';
import { discard } from './exchange.js';
import type { HopAnswer, HopPolicy } from './hop.js';

/**
 * Retries are for transient failures only, bounded, with exponential backoff. Everything else
 * is an answer: a 404, a TLS failure or a DNS NXDOMAIN will be the same a second later, and a
 * crawl of millions of hosts cannot afford to ask twice.
 */

/** HTTP statuses worth asking again (RFC 9110 §15.5.9 408, RFC 6585 §4 429, RFC 9110 §15.6.3–5 502/503/504). */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status === 502 || status === 503 || status === 504;
}

/**
 * Network failures worth asking again: only a connection reset (a keep-alive socket the
 * server closed while we reused it, or a hiccup). Timeouts are not retried: a server that
 * took the whole deadline once would likely take it again, at the cost of another deadline.
 */
export function isTransientError(code: FetchErrorCode): boolean {
  return code === 'reset';
}

/**
 * RFC 9110 §10.2.3 Retry-After: delay-seconds or an HTTP-date. Returns milliseconds from `now`
 * (≥ 0), or null when absent or unparseable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return null;
  const s = v.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const t = Date.parse(s);
  if (Number.isNaN(t)) return null;
  return Math.max(0, t - now);
}

/** Exponential backoff with "equal jitter": half fixed, half random, capped. `attempt` counts from 1. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.round(exp / 2 + (exp / 2) * random());
}

export type RetryConfig = Pick<FetchConfig, 'retries' | 'retryBaseMs' | 'retryMaxMs' | 'random' | 'sleep' | 'maxRetryAfterMs' | 'now'>;

/**
 * The retry policy (hop.ts): asks again, at most `retries` times while the chain's budget lasts,
 * after a transient failure (a `reset`) or a transient status, sleeping first: the backoff after a
 * failure; after a status its Retry-After (RFC 9110 §10.2.3), else the backoff. A Retry-After
 * longer than maxRetryAfterMs is not waited for: the status is the answer. The wait is this
 * policy's own; a host hold set by holdWalls for the same answer has run out by then.
 */
export function retryTransient(config: RetryConfig): HopPolicy {
  return (next) => async (first) => {
    let hop = first;
    let attempts = 0;
    let ip: string | null = null;
    for (;;) {
      const sent = await next(hop);
      attempts += sent.attempts;
      ip = sent.ip ?? ip;
      const a = sent.attempts === attempts && sent.ip === ip ? sent : { ...sent, attempts, ip };
      if (attempts > config.retries || hop.budget.remainingMs <= 0) return a;
      const waitMs = retryWait(a, hop.attempt, config);
      if (waitMs === null) return a;
      if (a.response !== null) await discard(a.response);
      try {
        await config.sleep(waitMs, hop.signal);
      } catch {
        return { ...a, response: null, error: 'aborted' };
      }
      hop = { ...hop, attempt: hop.attempt + 1 };
    }
  };
}

/** How long to wait before asking again after answer `a` to try `attempt`, or null when it is not asked again. */
function retryWait(a: HopAnswer, attempt: number, config: RetryConfig): number | null {
  if (a.response === null) return a.error !== null && isTransientError(a.error) ? backoffMs(attempt, config.retryBaseMs, config.retryMaxMs, config.random) : null;
  if (a.status === null || !isTransientStatus(a.status)) return null;
  const retryAfter = parseRetryAfter(a.headers?.['retry-after'], config.now());
  if (retryAfter !== null && retryAfter > config.maxRetryAfterMs) return null;
  return retryAfter ?? backoffMs(attempt, config.retryBaseMs, config.retryMaxMs, config.random);
}
