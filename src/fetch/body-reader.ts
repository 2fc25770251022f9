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
 * Wraps `raw` in the decoders its Content-Encoding names (RFC 9110 §8.4: listed in the order
 * applied, so decode in reverse). Throws FetchFailure('decode') for a coding we cannot decode.
 */
export function decodeBody(raw: Readable, contentEncoding: string | string[] | undefined): Readable {
  const header = Array.isArray(contentEncoding) ? contentEncoding.join(',') : contentEncoding;
  if (!header) return raw;
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return raw;
  const decoders: NodeJS.ReadWriteStream[] = [];
  for (const c of codings.reverse()) {
    const d = decoderFor(c);
    if (!d) throw new FetchFailure('decode', `unsupported Content-Encoding ${JSON.stringify(c)}`);
    decoders.push(d);
  }
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
