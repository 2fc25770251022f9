import { createHash, type Hash } from 'node:crypto';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { classifyError, FetchFailure, type FetchErrorCode } from './errors.js';

/**
 * The body as the parsers see it: decoded (gzip, deflate, br), counted and hashed after
 * decoding, cut at the kind's byte cap, pulled chunk by chunk so the socket is paused while a
 * parser is busy (backpressure all the way to TCP). A gzip bomb is stopped by the decoded count.
 */
export interface BodyState {
  /** Decoded bytes handed to the consumer. */
  bytes: number;
  /** More bytes existed past the cap. */
  truncated: boolean;
  /** The stream ended normally (not cut, not abandoned). */
  complete: boolean;
  readonly hash: Hash;
  /** Set when reading failed; the code explains why. */
  error: FetchErrorCode | null;
}

export function newBodyState(): BodyState {
  return { bytes: 0, truncated: false, complete: false, hash: createHash('sha256'), error: null };
}

const noop = () => {};

/**
 * Destroys a stream we no longer want. undici's body emits an 'error' (AbortError) when
 * destroyed early; nobody else listens then, so swallow it here rather than crash the process.
 */
export function discardStream(s: Readable): void {
  if (s.destroyed) return;
  s.on('error', noop);
  s.destroy();
}

/** Accept-Encoding we send: the codings we can decode. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

// Z_SYNC_FLUSH at the end tolerates a truncated stream (as browsers and curl do): the bytes
// that did arrive are kept instead of failing the whole body.
const gzipOpts = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
const brOpts = { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };

const KNOWN_CODINGS: ReadonlySet<string> = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

function decoderFor(coding: string): NodeJS.ReadWriteStream | null {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(gzipOpts);
    case 'deflate':
      return zlib.createInflate(gzipOpts);
    case 'br':
      return zlib.createBrotliDecompress(brOpts);
    default:
      return null;
  }
}

/**
 * Codings decoded at most. RFC 9110 §8.4 lets a server stack codings, but no real server stacks
 * more than two, and each decoder costs memory (a Brotli decoder ~100 KB): a header of thousands
 * of `br, br, …` must not build thousands of decoders.
 */
export const MAX_CONTENT_CODINGS = 2;

/**
 * Wraps `raw` in the decoders its Content-Encoding names (RFC 9110 §8.4: listed in the order
 * applied, so decode in reverse). Throws FetchFailure('decode') for a coding we cannot decode and
 * FetchFailure('too_many_encodings') past MAX_CONTENT_CODINGS; both before any decoder is built.
 */
export function decodeBody(raw: Readable, contentEncoding: string | string[] | undefined): Readable {
  const header = Array.isArray(contentEncoding) ? contentEncoding.join(',') : contentEncoding;
  if (!header) return raw;
  const codings: string[] = [];
  for (const part of header.split(',')) {
    const c = part.trim().toLowerCase();
    if (c === '' || c === 'identity') continue;
    if (codings.length === MAX_CONTENT_CODINGS) throw new FetchFailure('too_many_encodings', `more than ${MAX_CONTENT_CODINGS} content codings in ${JSON.stringify(header.slice(0, 80))}…`);
    if (!KNOWN_CODINGS.has(c)) throw new FetchFailure('decode', `unsupported Content-Encoding ${JSON.stringify(c.slice(0, 40))}`);
    codings.push(c);
  }
  if (codings.length === 0) return raw;
  const decoders = codings.reverse().map((c) => decoderFor(c)!);
  // pipeline() propagates errors and destroys every stage when the last one is destroyed.
  return pipeline(raw, ...(decoders as [NodeJS.ReadWriteStream]), () => {}) as unknown as Readable;
}

/**
 * Yields the decoded body up to `cap` bytes. Stops (and destroys the source, aborting the
 * transfer) at the cap or when the consumer stops. A read failure is recorded in `state.error`
 * and rethrown as a FetchFailure so the consumer sees it; `deadlineCode()` names the reason
 * when our own deadline destroyed the stream.
 */
export async function* cappedBody(src: Readable, cap: number, state: BodyState, abortCode: () => FetchErrorCode | null): AsyncGenerator<Uint8Array, void, undefined> {
  try {
    for await (const chunk of src as AsyncIterable<Buffer>) {
      let c = chunk;
      const room = cap - state.bytes;
      if (c.length > room) {
        c = c.subarray(0, room);
        state.truncated = true;
      }
      if (c.length > 0) {
        state.bytes += c.length;
        state.hash.update(c);
        yield c;
      }
      if (state.truncated) return;
    }
    state.complete = true;
  } catch (err) {
    const code = abortCode() ?? classifyError(err);
    state.error = code;
    throw new FetchFailure(code, `body read failed: ${(err as Error)?.message ?? err}`, { cause: err });
  } finally {
    if (!state.complete) discardStream(src);
  }
}

/** The first bytes of a body: its chunks, whether the body ended within them, and a read failure met. */
export interface BodyHead {
  chunks: Uint8Array[];
  ended: boolean;
  error: unknown;
}

/**
 * Reads at least `limit` bytes of `body` (or all of a shorter one), keeping a read failure for
 * the caller: the one look at a body's head, for a bot wall's markers (challenge.ts) before the
 * consumer or instead of it.
 */
export async function peekHead(body: AsyncIterator<Uint8Array>, limit: number): Promise<BodyHead> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    while (n < limit) {
      const next = await body.next();
      if (next.done) return { chunks, ended: true, error: null };
      chunks.push(next.value);
      n += next.value.byteLength;
    }
  } catch (err) {
    return { chunks, ended: true, error: err ?? new Error('body read failed') };
  }
  return { chunks, ended: false, error: null };
}
