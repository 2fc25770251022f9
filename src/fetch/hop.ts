import type { Dispatcher } from 'undici';
import type { FetchErrorCode } from './errors.js';
import type { Target } from './target.js';
import type { FetchKind } from './types.js';

/**
 * The shape of the fetch chain, after undici's interceptors (`Dispatcher.compose`: each
 * interceptor is `dispatch => (opts, handler) => …` and wraps the one before). Here a policy is
 * `next => hop => Promise<HopAnswer>`: it may send the hop on unchanged, send it again (retry),
 * send a copy with another URL (redirect), or look at the answer and change it (a bot wall, a
 * hold). undici's own interceptors are not used: they see a response as handler callbacks and
 * know nothing of our per-kind redirect scope, our exact deadlines or the politeness slots the
 * body is read under (docs/choices.md#http-client), so the shape is mirrored, with one result type.
 *
 * The policies, innermost first: `sendOnce` (exchange.ts: address guard, politeness slots,
 * deadlines, one request), `holdWalls` (holds.ts: bot walls and 429/503 holds), `retryTransient`
 * (retry.ts), `followRedirects` (redirect-policy.ts). Above them the chain reads the body
 * (answer-body.ts: decoding, byte cap, hash) and the fetcher may try HTTP after HTTPS
 * (fallback.ts).
 */

/** Network time left for a whole chain (hops, retries and body; waiting for a slot is not counted). */
export interface Budget {
  remainingMs: number;
}

export interface OpenResponse {
  res: Dispatcher.ResponseData;
  target: Target;
  /** When the whole-request deadline fires (performance.now() clock). */
  deadlineAt: number;
  /** The code of our own deadline or abort when it cut the exchange, else null. */
  abortCode(): FetchErrorCode | null;
  /** Clears the timers and releases the slots (idempotent). */
  finish(): void;
}

/** Response headers as undici gives them (names lower-cased). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** One request to send. Policies pass it on as it is, or a copy with another URL or attempt number. */
export interface Hop {
  readonly url: URL;
  readonly kind: FetchKind;
  readonly headers: Record<string, string>;
  /** Network time left for the whole chain, shared by every hop and retry. */
  readonly budget: Budget;
  readonly signal: AbortSignal | undefined;
  readonly closeConnection: boolean;
  /** 1 for the first request of this URL, 2 for its first retry, … */
  readonly attempt: number;
}

/** What every policy gets from the next one and hands to the one before: the one result type of the chain. */
export interface HopAnswer {
  /** URL this answer is for (the last hop's). */
  url: URL;
  /** The response, still holding its slots and deadline, until a policy or the chain reads or discards it. */
  response: OpenResponse | null;
  /** HTTP status and headers of the answer (kept after its body is discarded); null when no HTTP answer was had. */
  status: number | null;
  headers: ResponseHeaders | null;
  /** Why the chain ends without a usable answer, else null. */
  error: FetchErrorCode | null;
  /** Address connected to (null when none was resolved). */
  ip: string | null;
  /** Requests sent for this answer, retries and redirects included. */
  attempts: number;
  /** URLs redirected to, in order (the `fetches.redirects` column). */
  redirects: string[];
}

export type SendHop = (hop: Hop) => Promise<HopAnswer>;
export type HopPolicy = (next: SendHop) => SendHop;

/** Wraps `send` in `policies`, as undici's `compose`: the first listed is innermost, the last outermost. */
export function compose(send: SendHop, ...policies: readonly HopPolicy[]): SendHop {
  let dispatch = send;
  for (const policy of policies) dispatch = policy(dispatch);
  return dispatch;
}

/** A header's value as one string (repeated headers joined as RFC 9110 §5.3 allows), null when absent. */
export function headerValue(h: ResponseHeaders | null, name: string): string | null {
  const v = h?.[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}
