import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import { discardStream } from './body-reader.js';
import type { FetchConfig } from './config.js';
import { classifyError, FetchFailure, type FetchErrorCode } from './errors.js';
import type { Hop, HopAnswer, OpenResponse, SendHop } from './hop.js';
import type { Politeness } from './politeness.js';
import type { RouteTable } from './routes.js';
import { resolveTarget, type Target, type TargetDeps } from './target.js';

/**
 * One request of a chain: resolve where to connect (address guard, --connect-to), take the
 * politeness slots, send, and wait for the headers under exact deadlines. The response comes back
 * still holding its slots and its whole-request deadline, so the body is read under both;
 * `finish()` lets them go. Retries, holds and redirects are the policies around it (hop.ts).
 */

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
 * One 'abort' listener per caller signal however many requests listen on it: the run's signal has
 * one request per lane in flight (256 by default), and an EventTarget's add and remove each walk
 * its whole listener list, so a listener per request cost O(lanes) twice per request.
 */
const abortWatchers = new WeakMap<AbortSignal, Set<() => void>>();

function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
  let watching = abortWatchers.get(signal);
  if (watching === undefined) {
    const set = new Set<() => void>();
    watching = set;
    abortWatchers.set(signal, set);
    const onAbortAll = () => {
      for (const f of [...set]) f();
      set.clear();
    };
    signal.addEventListener('abort', onAbortAll, { once: true });
  }
  const set = watching;
  set.add(onAbort);
  return () => void set.delete(onAbort);
}

/** The key the per-address limit and clock use for a target (see attemptOnce). */
export function ipKeyOf(target: Target): string {
  return target.viaConnectTo ? `connect-to ${target.host}` : target.ip;
}

async function attemptOnce(hop: Hop, deps: ExchangeDeps, answer: HopAnswer): Promise<OpenResponse> {
  const { signal, budget, headers } = hop;
  const target = await resolveTarget(hop.url, deps.targets);
  answer.ip = target.ip;
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
  const unwatch = signal ? watchAbort(signal, () => fire('aborted', 'aborted by caller')) : noop;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(total);
    clearTimeout(head);
    unwatch();
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
    const sent = deps.agent.request({ origin: target.origin, path: target.path, method: 'GET', headers, signal: ctl.signal, reset: hop.closeConnection });
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

/**
 * The innermost policy (hop.ts): one request, no retry. A failure is an answer with an error code,
 * never an exception.
 */
export function sendOnce(deps: ExchangeDeps): SendHop {
  return async (hop) => {
    const answer: HopAnswer = { url: hop.url, response: null, status: null, headers: null, error: null, ip: null, attempts: 1, redirects: [] };
    try {
      const r = await attemptOnce(hop, deps, answer);
      answer.response = r;
      answer.status = r.res.statusCode;
      answer.headers = r.res.headers;
    } catch (err) {
      answer.error = classifyError(err);
    }
    return answer;
  };
}
