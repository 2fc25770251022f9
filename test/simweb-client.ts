/**
 * A deliberately small client for the simweb tests: node:http / node:https straight to the
 * simweb port with the URL's host in Host and SNI (curl's --connect-to). It does not use
 * src/fetch, so the server is tested independently of the crawler.
 */
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { rootDomain } from '../src/util/domain.js';

export interface Answer {
  status: number | null;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  error: string | null;
}

export interface GetOptions {
  port: number;
  ca: string;
  headers?: Record<string, string>;
  /** Stop reading after this many bytes (the response is then destroyed). */
  maxBytes?: number;
  timeoutMs?: number;
}

export function get(url: string, o: GetOptions): Promise<Answer> {
  const u = new URL(url);
  const secure = u.protocol === 'https:';
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let status: number | null = null;
    let headers: http.IncomingHttpHeaders = {};
    let done = false;
    const finish = (error: string | null) => {
      if (done) return;
      done = true;
      resolve({ status, headers, body: Buffer.concat(chunks), error });
    };
    const options: https.RequestOptions = {
      host: '127.0.0.1', port: o.port, path: u.pathname + u.search, agent: false,
      headers: { host: u.host, 'user-agent': 'simweb-test', ...o.headers },
      ...(secure ? { servername: u.hostname, ca: o.ca, checkServerIdentity: (_h: string, cert: tls.PeerCertificate) => tls.checkServerIdentity(u.hostname, cert) } : {}),
    };
    const req = (secure ? https : http).request(options, (res) => {
      status = res.statusCode ?? null;
      headers = res.headers;
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (o.maxBytes !== undefined && size >= o.maxBytes) {
          finish('max_bytes');
          res.destroy();
        }
      });
      res.on('end', () => finish(null));
      res.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
      res.on('aborted', () => finish('aborted'));
      res.on('close', () => finish(res.complete ? null : 'aborted'));
    });
    req.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
    if (o.timeoutMs) req.setTimeout(o.timeoutMs, () => { req.destroy(); finish('timeout'); });
    req.end();
  });
}

/** Counts data records as ads.txt 1.1 §3.4 defines them (comments, variables and short lines excluded). */
export function countRecords(body: Buffer): { records: number; variables: number } {
  let text: string;
  if (body[0] === 0xff && body[1] === 0xfe) text = body.subarray(2).toString('utf16le');
  else text = body.toString('utf8').replace(/^\uFEFF/, '');
  let records = 0;
  let variables = 0;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.split('#')[0]!.trim();
    if (!line) continue;
    const eq = line.indexOf('=');
    if (eq > 0 && /^[A-Za-z0-9_-]+$/.test(line.slice(0, eq).trim())) { variables++; continue; }
    if (line.split(';')[0]!.split(',').filter((f) => f.trim() !== '').length >= 3) records++;
  }
  return { records, variables };
}

export interface MiniCrawl { status: string; records?: number; variables?: number; finalUrl: string | null; requests: number }

/**
 * What a spec-following crawl records for https://host/<file>: HTTPS first, HTTP when HTTPS gave
 * no answer; redirects inside the root freely, one out of it (ads.txt 1.1 §3.1), at most 10.
 */
export async function miniCrawl(host: string, file: string, o: GetOptions): Promise<MiniCrawl> {
  const root = rootDomain(host);
  let requests = 0;
  for (const scheme of ['https', 'http']) {
    let url = `${scheme}://${host}/${file}`;
    let outHops = 0;
    for (let hop = 0; hop <= 10; hop++) {
      requests++;
      const a = await get(url, o);
      if (a.status === null) break; // no answer: try the next scheme
      if ([301, 302, 303, 307, 308].includes(a.status)) {
        const next = new URL(a.headers.location!, url);
        if (rootDomain(next.hostname) !== root && ++outHops > 1) return { status: 'redirect_error', finalUrl: url, requests };
        url = next.href;
        continue;
      }
      const base = { finalUrl: url, requests };
      if (a.status === 404) return { status: 'not_found', ...base };
      if (a.status === 401 || a.status === 403) return { status: 'unauthorized', ...base };
      if (a.status < 200 || a.status > 299) return { status: 'http_error', ...base };
      const ct = String(a.headers['content-type'] ?? '');
      if (/^\s*<(!doctype|html)/i.test(a.body.toString('utf8'))) return { status: 'html', ...base };
      const counts = countRecords(a.body);
      if (!/^text\/plain\s*(;|$)/i.test(ct)) return { status: 'invalid_content_type', ...counts, ...base };
      if (/^\s*placeholder\.example\.com\s*,\s*placeholder\s*,\s*DIRECT\s*,\s*placeholder\s*$/m.test(a.body.toString()) && counts.records === 1) return { status: 'placeholder', ...base };
      if (counts.records === 0 && counts.variables === 0) return { status: 'empty', ...base };
      return { status: 'ok', ...counts, ...base };
    }
    if (requests > 11) return { status: 'redirect_error', finalUrl: url, requests };
  }
  return { status: 'unreachable', finalUrl: null, requests };
}
