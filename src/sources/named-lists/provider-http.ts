/**
 * The requests made to a list provider: undici's `request()` (the crawl's HTTP client, not
 * `fetch`), redirects followed (the download URLs of Tranco and Radar point elsewhere), a
 * User-Agent that names adsnap, and one request at a time per provider in the whole process,
 * however many lists and clients there are. A provider that publishes a rate limit is held to it by the per-provider
 * spacing (`minIntervalMs`, from providers.ts).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { Agent, interceptors, type Dispatcher } from 'undici';

/** The provider answered, but not with what was asked (`status` is its HTTP status). */
export class ListHttpError extends Error {
  readonly code = 'LIST_HTTP_ERROR';
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

/** The provider could not be reached (DNS, connect, TLS, timeout, reset): a cached list may stand in. */
export class ListUnreachableError extends Error {
  readonly code = 'LIST_UNREACHABLE';
}

export interface ProviderHttpOptions {
  userAgent: string;
  /** Per request, headers and body each. @default 60000 */
  timeoutMs?: number;
  /** Largest list file downloaded. @default 1 GiB */
  maxBytes?: number;
}

export interface Downloaded {
  bytes: number;
  sha256: string;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
}

const MAX_JSON_BYTES = 1 << 20;

// Per provider, for the whole process (every client shares them): the last request's promise and end time.
const queues = new Map<string, Promise<unknown>>();
const lastEnd = new Map<string, number>();

export class ProviderHttp {
  private readonly agent: Dispatcher;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(private readonly o: ProviderHttpOptions) {
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.maxBytes = o.maxBytes ?? 1 << 30;
    this.agent = new Agent({ headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs }).compose(interceptors.redirect({ maxRedirections: 5 }));
  }

  /** A JSON answer (at most 1 MiB). 404 and other non-2xx throw ListHttpError with the status. */
  json(provider: string, url: string, init: { headers?: Record<string, string>; method?: 'GET' | 'POST'; body?: string; minIntervalMs?: number } = {}): Promise<unknown> {
    return this.serial(provider, init.minIntervalMs ?? 0, async () => {
      const res = await this.send(url, init.method ?? 'GET', { accept: 'application/json', ...init.headers }, init.body);
      const text = await readCapped(res, MAX_JSON_BYTES, url);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ListHttpError(`${url} answered ${res.statusCode} with a body that is not JSON`, res.statusCode);
      }
    });
  }

  /** Streams the body into `file` (through a temporary name, renamed when whole), hashing it. */
  download(provider: string, url: string, file: string, init: { headers?: Record<string, string>; minIntervalMs?: number } = {}): Promise<Downloaded> {
    return this.serial(provider, init.minIntervalMs ?? 0, async () => {
      const res = await this.send(url, 'GET', init.headers ?? {});
      const hash = createHash('sha256');
      let bytes = 0;
      const max = this.maxBytes;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          if (bytes > max) return done(new ListHttpError(`${url}: the list is larger than ${max} bytes`, res.statusCode));
          hash.update(chunk);
          done(null, chunk);
        },
      });
      const tmp = `${file}.${process.pid}.part`;
      try {
        await pipeline(res.body, count, createWriteStream(tmp));
        await rename(tmp, file);
      } catch (err) {
        await rm(tmp, { force: true });
        throw unreachable(err, url);
      }
      return { bytes, sha256: hash.digest('hex'), finalUrl: url };
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async send(url: string, method: 'GET' | 'POST', headers: Record<string, string>, body?: string): Promise<Dispatcher.ResponseData> {
    let res: Dispatcher.ResponseData;
    try {
      res = await this.agent.request({ ...splitUrl(url), method, headers: { 'user-agent': this.o.userAgent, ...headers }, body });
    } catch (err) {
      throw unreachable(err, url);
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump().catch(() => {});
      throw new ListHttpError(`${url} answered HTTP ${res.statusCode}`, res.statusCode);
    }
    return res;
  }

  /** One request at a time per provider, spaced by at least `minIntervalMs`. */
  private serial<T>(provider: string, minIntervalMs: number, work: () => Promise<T>): Promise<T> {
    const prev = queues.get(provider) ?? Promise.resolve();
    const next = prev
      .catch(() => {})
      .then(async () => {
        const wait = (lastEnd.get(provider) ?? 0) + minIntervalMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        try {
          return await work();
        } finally {
          lastEnd.set(provider, Date.now());
        }
      });
    queues.set(provider, next);
    return next;
  }
}

function splitUrl(url: string): { origin: string; path: string } {
  const u = new URL(url);
  return { origin: u.origin, path: u.pathname + u.search };
}

async function readCapped(res: Dispatcher.ResponseData, max: number, url: string): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    n += chunk.length;
    if (n > max) {
      res.body.destroy();
      throw new ListHttpError(`${url}: the answer is larger than ${max} bytes`, res.statusCode);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The cause in words a user acts on, with the system's code for a search: "connection refused (ECONNREFUSED)". */
const CAUSES: Readonly<Record<string, string>> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  UND_ERR_SOCKET: 'the connection was closed before an answer',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stopped',
  ENETUNREACH: 'the network is unreachable',
  EHOSTUNREACH: 'the host is unreachable',
};

function unreachable(err: unknown, url: string): Error {
  if (err instanceof ListHttpError) return err;
  const e = err as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const cause = code ? `${CAUSES[code] ?? e.message ?? code} (${code})` : (e?.message ?? String(err));
  return new ListUnreachableError(`${url}: ${cause}`);
}
