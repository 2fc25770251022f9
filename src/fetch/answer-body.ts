import type { Readable } from 'node:stream';
import { cappedBody, decodeBody, discardStream, newBodyState, peekHead, type BodyHead } from './body-reader.js';
import { CHALLENGE_PEEK_BYTES, challengeFromBody, isHtmlType } from './challenge.js';
import { classifyError, FetchFailure, type FetchErrorCode } from './errors.js';
import type { OpenResponse } from './hop.js';
import type { WallHolds } from './holds.js';
import type { BodyConsumer, ResponseMeta } from './types.js';

/**
 * The last step of a chain: the body of a 2xx answer, decoded and cut at the kind's byte cap
 * (body-reader.ts), handed to the consumer, and what reading it gave. A 2xx HTML page is looked
 * at first, for it may be a bot wall's interstitial (challenge.ts).
 */

/** What reading a body gave: the `fetches` row's body columns and the consumer's result. */
export interface BodyRead<T> {
  /** Decoded bytes read. */
  bytes: number;
  /** The body went past the byte cap and was cut. */
  truncated: boolean;
  /** Hex sha256 of the bytes read, null when no body was read. */
  sha256: string | null;
  body: T | null;
  /** Why reading failed (`too_large` when cut, `challenge` for a wall's page), else null. */
  error: FetchErrorCode | null;
}

/** No body was read (an answer without one, or none wanted). */
export const NO_BODY: BodyRead<never> = Object.freeze({ bytes: 0, truncated: false, sha256: null, body: null, error: null });

export function failed(error: FetchErrorCode): BodyRead<never> {
  return { ...NO_BODY, error };
}

type Chunks = AsyncGenerator<Uint8Array, void, undefined>;

/** Reads `r`'s body through `consume`; releases the response whatever happens. */
export async function readBody<T>(r: OpenResponse, meta: ResponseMeta, consume: BodyConsumer<T>, walls: WallHolds): Promise<BodyRead<T>> {
  let decoded: Readable;
  try {
    decoded = decodeBody(r.res.body, r.res.headers['content-encoding']);
  } catch (err) {
    discardStream(r.res.body);
    r.finish();
    return failed(classifyError(err));
  }
  const state = newBodyState();
  let body: Chunks = cappedBody(decoded, meta.maxBytes, state, r.abortCode);
  if (isHtmlType(meta.contentType)) {
    // Look at the first bytes before the consumer does, and hand the consumer the same bytes
    // followed by the rest.
    const head = await peekHead(body, CHALLENGE_PEEK_BYTES);
    const wall = head.error !== null ? null : challengeFromBody(Buffer.concat(head.chunks));
    if (wall !== null) {
      discardStream(decoded);
      await body.return(undefined);
      r.finish();
      walls.met(wall, r.target, null);
      return failed('challenge');
    }
    body = replay(head, body);
  }
  let result: T | null = null;
  try {
    result = await consume(body, meta);
  } catch (err) {
    // A body read failure (deadline, reset, corrupt gzip) reaches the consumer as a
    // FetchFailure; it is a web outcome. Anything else is a bug in the consumer: rethrown.
    if (state.error === null && !(err instanceof FetchFailure)) throw err;
    state.error ??= (err as FetchFailure).code;
  } finally {
    // The consumer may have stopped early or never started: abort the rest of the transfer.
    if (!state.complete) {
      discardStream(decoded);
      await body.return(undefined);
    }
    r.finish();
  }
  const read = state.bytes > 0 || state.complete || state.truncated;
  return {
    bytes: state.bytes,
    truncated: state.truncated,
    sha256: read ? state.hash.digest('hex') : null,
    body: result,
    error: state.error ?? (state.truncated ? 'too_large' : null),
  };
}

/** The peeked chunks again, then the rest of the body (or the failure met while peeking). */
async function* replay(head: BodyHead, rest: Chunks): Chunks {
  try {
    yield* head.chunks;
    if (head.error !== null) throw head.error;
    if (!head.ended) yield* rest;
  } finally {
    await rest.return(undefined);
  }
}
