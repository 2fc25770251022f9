import type { FetchConfig } from './config.js';
import type { FetchErrorCode } from './errors.js';
import { discard } from './exchange.js';
import type { HopPolicy } from './hop.js';

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
 * after a transient failure (a `reset`, after a backoff sleep) or a transient status (after the
 * hold holdWalls set, waited out in politeness.enter()). A Retry-After longer than
 * maxRetryAfterMs is not waited for: the status is the answer.
 */
export function retryTransient(config: RetryConfig): HopPolicy {
  return (next) => async (first) => {
    let hop = first;
    let attempts = 0;
    let ip: string | null = null;
    for (;;) {
      const a = await next(hop);
      attempts += a.attempts;
      a.attempts = attempts;
      a.ip = ip = a.ip ?? ip;
      const left = attempts <= config.retries && hop.budget.remainingMs > 0;
      if (a.response === null) {
        if (!left || a.error === null || !isTransientError(a.error)) return a;
        try {
          await config.sleep(backoffMs(attempts, config.retryBaseMs, config.retryMaxMs, config.random), hop.signal);
        } catch {
          a.error = 'aborted';
          return a;
        }
      } else {
        const status = a.response.res.statusCode;
        if (!left || !isTransientStatus(status)) return a;
        const retryAfter = parseRetryAfter(a.response.res.headers['retry-after'], config.now());
        if (retryAfter !== null && retryAfter > config.maxRetryAfterMs) return a;
        await discard(a.response);
      }
      hop = { ...hop, attempt: hop.attempt + 1 };
    }
  };
}
