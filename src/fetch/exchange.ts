import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
import { decodeBody, discardStream } from './body-reader.js';
import { CHALLENGE_PEEK_BYTES, challengeFromBody, challengeFromHeaders, mayBeChallenge, type WallVendor } from './challenge.js';
import type { FetchConfig } from './config.js';
import { classifyError, FetchFailure, type FetchErrorCode } from './errors.js';
import type { Politeness } from './politeness.js';
import { backoffMs, isTransientError, isTransientStatus, parseRetryAfter } from './retry.js';
import type { RouteTable } from './routes.js';
import { resolveTarget, type Target, type TargetDeps } from './target.js';

/**
 * One hop of a request chain: resolve where to connect (address guard, --connect-to), take the
 * politeness slots, send, and wait for the headers under exact deadlines; retry transient
 * failures with backoff. The response comes back still holding its slots and its whole-request
 * deadline, so the body is read under both; `finish()` lets them go.
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

export interface HopResult {
  response: OpenResponse | null;
  error: FetchErrorCode | null;
  /** The answer was a bot wall (its body, if looked at, is consumed and its slots released). */
  wall: WallVendor | null;
  ip: string | null;
  attempts: number;
}

export interface ExchangeDeps {
  agent: Agent;
  /** Where the agent's connector connects for each origin (held while a request is out). */
  routes: RouteTable;
  politeness: Politeness;
  targets: TargetDeps;
  config: FetchConfig;
  /** Counts every request actually sent. */
  onSend(): void;
}

const DUMP_LIMIT = 64 * 1024;

const noop = () => {};

/** Reads and discards a body we do not want (redirects, errors), so the connection can be reused. */
export async function discard(r: OpenResponse): Promise<void> {
  try {
    await r.res.body.dump({ limit: DUMP_LIMIT });
  } catch {
    /* a body we did not want failed: nothing to record */
  } finally {
    r.finish();
  }
}

/**
 * Looks at the first bytes of a body (decoded) for a bot wall's markers, then lets the rest go.
 * The connection is not reused after an unread remainder; a bounded look is worth that.
 */
async function peekWall(r: OpenResponse): Promise<WallVendor | null> {
  const ct = String(r.res.headers['content-type'] ?? '').toLowerCase();
  if (ct !== '' && !ct.includes('html')) return null; // the interstitials are HTML pages
  let decoded;
  try {
    decoded = decodeBody(r.res.body, r.res.headers['content-encoding']);
  } catch {
    await discard(r);
    return null;
  }
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    for await (const c of decoded as AsyncIterable<Buffer>) {
      chunks.push(c);
      n += c.length;
      if (n >= CHALLENGE_PEEK_BYTES) break;
    }
  } catch {
    /* a body we only peek at failed: judge what came */
  } finally {
    discardStream(decoded);
    discardStream(r.res.body);
    r.finish();
  }
  return challengeFromBody(Buffer.concat(chunks));
}

/** The key the per-address limit and clock use for a target (see attemptOnce). */
export function ipKeyOf(target: Target): string {
  return target.viaConnectTo ? `connect-to ${target.host}` : target.ip;
}

async function attemptOnce(url: URL, headers: Record<string, string>, budget: Budget, deps: ExchangeDeps, seen: { ip: string | null }, hop: HopOptions): Promise<OpenResponse> {
  const { signal } = hop;
  const target = await resolveTarget(url, deps.targets);
  seen.ip = target.ip;
  // The per-IP cap protects shared hosting that DNS reveals. An address chosen by the operator
  // with --connect-to (a proxy, the simulated web) says nothing about which sites share a
  // server, so there each host counts as its own "address" (the per-host limit still applies).
  const ipKey = ipKeyOf(target);
  const release = deps.politeness.tryEnter(target.host, ipKey) ?? (await deps.politeness.enter(target.host, ipKey, signal));
  const releaseRoute = deps.routes.hold(target.routeKey, target.ip, target.connectPort);
  const start = performance.now();
  const ctl = new AbortController();
  let code: FetchErrorCode | null = null;
  // Rejects the race below when our deadline fires (no extra listener on the signal).
  let cut: (err: FetchFailure) => void = noop;
  const fire = (c: FetchErrorCode, why: string) => {
    if (code !== null) return;
    code = c;
    const err = new FetchFailure(c, why);
    ctl.abort(err);
    cut(err);
  };
  const remaining = Math.max(1, Math.floor(budget.remainingMs));
  const total = setTimeout(fire, remaining, 'timeout', 'whole-request deadline');
  const head = setTimeout(fire, Math.min(deps.config.headersTimeoutMs, remaining), 'timeout', 'headers deadline');
  const onAbort = () => fire('aborted', 'aborted by caller');
  signal?.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(total);
    clearTimeout(head);
    signal?.removeEventListener('abort', onAbort);
    budget.remainingMs -= performance.now() - start;
    releaseRoute();
    release();
  };
  if (budget.remainingMs <= 0 || signal?.aborted) {
    finish();
    throw new FetchFailure(signal?.aborted ? 'aborted' : 'timeout', 'no time left');
  }
  try {
    deps.onSend();
    headers.host = target.hostHeader;
    const sent = deps.agent.request({ origin: target.origin, path: target.path, method: 'GET', headers, signal: ctl.signal, reset: hop.closeConnection === true });
    // undici looks at the signal only once connected; our deadline must not wait for that.
    const deadline = new Promise<never>((_, reject) => (cut = reject));
    const res = await Promise.race([sent, deadline]).catch((err: unknown) => {
      sent.then((late) => discardStream(late.body), noop);
      throw err;
    });
    clearTimeout(head);
    return { res, target, deadlineAt: start + remaining, abortCode: () => code, finish };
  } catch (err) {
    finish();
    const c = code ?? classifyError(err);
    throw err instanceof FetchFailure && err.code === c ? err : new FetchFailure(c, (err as Error)?.message ?? String(err), { cause: err });
  }
}

/** Sends one hop, retrying transient failures (retry.ts) at most `config.retries` times. */
export interface HopOptions {
  signal?: AbortSignal | undefined;
  /** Send `Connection: close` and close the socket after the answer (FetchRequest.closeConnection). */
  closeConnection?: boolean | undefined;
}

export async function sendHop(url: URL, headers: Record<string, string>, budget: Budget, deps: ExchangeDeps, hop: HopOptions = {}): Promise<HopResult> {
  const { signal } = hop;
  const { config, politeness } = deps;
  const seen = { ip: null as string | null };
  let attempts = 0;
  for (;;) {
    attempts++;
    let r: OpenResponse;
    try {
      r = await attemptOnce(url, headers, budget, deps, seen, hop);
    } catch (err) {
      const code = classifyError(err);
      if (isTransientError(code) && attempts <= config.retries && budget.remainingMs > 0) {
        try {
          await config.sleep(backoffMs(attempts, config.retryBaseMs, config.retryMaxMs, config.random), signal);
        } catch {
          return { response: null, error: 'aborted', wall: null, ip: seen.ip, attempts };
        }
        continue;
      }
      return { response: null, error: code, wall: null, ip: seen.ip, attempts };
    }
    const status = r.res.statusCode;
    const retryAfter = parseRetryAfter(r.res.headers['retry-after'], config.now());
    // A bot wall (challenge.ts) is no transient failure: asking again gets the same page. The host
    // is held (its Retry-After, else wallHoldMs) and so, briefly, is the address behind it.
    const wall = challengeFromHeaders(status, r.res.headers) ?? (mayBeChallenge(status) ? await peekWall(r) : null);
    if (wall !== null) {
      const hold = Math.min(retryAfter ?? config.wallHoldMs, config.maxRetryAfterMs);
      politeness.backOff(r.target.host, hold, ipKeyOf(r.target), Math.min(hold, config.ipBackoffMs), `challenge:${wall}`);
      return { response: r, error: null, wall, ip: seen.ip, attempts };
    }
    if (!isTransientStatus(status)) return { response: r, error: null, wall: null, ip: seen.ip, attempts };
    // RFC 6585 §4 / RFC 9110 §10.2.3: the server says when to come back. The whole host is
    // held back (not just this URL): a server in trouble gets a rest from every request of ours;
    // after a 429 the address behind it too, briefly (a CDN address serves many other sites).
    const wait = retryAfter ?? backoffMs(attempts, config.retryBaseMs, config.retryMaxMs, config.random);
    const hold = Math.min(wait, config.maxRetryAfterMs);
    politeness.backOff(r.target.host, hold, ipKeyOf(r.target), status === 429 ? Math.min(hold, config.ipBackoffMs) : 0, String(status));
    const tooLong = retryAfter !== null && retryAfter > config.maxRetryAfterMs;
    if (attempts > config.retries || tooLong || budget.remainingMs <= 0) return { response: r, error: null, wall: null, ip: seen.ip, attempts };
    await discard(r);
    // The next attempt waits out the host clock inside politeness.enter().
  }
}
