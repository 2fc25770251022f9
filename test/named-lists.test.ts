import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { readDomainList, type TargetInput } from '../src/sources/domain-list.js';
import { isNamedList, parseListSelector, resolveNamedList, ListConfigError, RADAR_TOKEN_ENV, type ListProvider } from '../src/sources/named-lists/index.js';
import { closedPort } from './helpers/local-server.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('named-lists');
const UA = 'adsnap/test (+https://github.com/adsnap/adsnap)';
const TOKEN = 'radar-test-token';

/**
 * A local server that answers as each provider does (paths as their APIs and repositories lay
 * them out, below a base URL per provider), and notes every request.
 */
interface Seen {
  path: string;
  ua: string | undefined;
  auth: string | undefined;
}
let server: Server;
let port = 0;
const seen: Seen[] = [];
let inFlight = 0;
let maxInFlight = 0;

const TRANCO: Record<string, { list_id: string; available: boolean; created_on: string } | 404> = {
  latest: { list_id: 'L7XQ2', available: true, created_on: '2026-11-25T00:00:00.000000' },
  '2026-11-20': { list_id: 'K3J8W', available: true, created_on: '2026-11-20T00:00:00.000000' },
  '2026-11-24': { list_id: 'W24AB', available: true, created_on: '2026-11-24T00:00:00.000000' },
  '2026-11-25': { list_id: 'PEND1', available: false, created_on: '2026-11-25T00:00:00.000000' },
  // A list id is a file name in the cache: one that is not an id is refused.
  '2019-01-01': { list_id: '../../evil', available: true, created_on: '2019-01-01T00:00:00.000000' },
};
const TRANCO_LISTS: Record<string, string> = {
  L7XQ2: '1,alpha.example\n2,beta.example\n3,gamma.example\n4,delta.example\n',
  K3J8W: '1,kilo.example\n2,lima.example\n3,mike.example\n',
  W24AB: '1,wed.example\n2,thu.example\n',
};

function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url!, 'http://x');
  const p = url.pathname;
  const send = (status: number, body: string | Buffer, type = 'text/plain') => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  let m: RegExpMatchArray | null;
  if ((m = p.match(/^\/tranco\/api\/lists\/date\/([\w-]+)$/))) {
    const meta = TRANCO[m[1]!];
    return meta && meta !== 404 ? send(200, JSON.stringify({ ...meta, download: `https://tranco-list.eu/download/${meta.list_id}/1000000` }), 'application/json') : send(404, 'not found');
  }
  if ((m = p.match(/^\/tranco\/api\/lists\/id\/(\w+)$/))) {
    const meta = Object.values(TRANCO).find((v) => v !== 404 && v.list_id === m![1]);
    return meta ? send(200, JSON.stringify(meta), 'application/json') : send(404, JSON.stringify({ message: 'no list' }), 'application/json');
  }
  if ((m = p.match(/^\/tranco\/download\/(\w+)\/1000000$/))) return TRANCO_LISTS[m[1]!] ? send(200, TRANCO_LISTS[m[1]!]!, 'text/csv') : send(404, '');
  if (p === '/crux/data/global/202610.csv.gz') return send(200, gzipSync('origin,rank\nhttps://www.alpha.example,1000\nhttps://beta.example,1000\nhttp://gamma.example,5000\n'), 'application/gzip');
  if (p === '/crux/data/country/de/202610.csv.gz') return send(200, gzipSync('origin,rank\nhttps://www.spiegel.example,1000\n'), 'application/gzip');
  if (p === '/majestic/majestic_million.csv') return send(200, 'GlobalRank,TldRank,Domain,TLD,RefSubNets,RefIPs\n1,1,maj-one.example,example,100,120\n2,2,maj-two.example,example,90,95\n', 'text/csv');
  if (p === '/radar/radar/datasets/ranking_top_1000000') {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, JSON.stringify({ success: false, errors: [{ code: 10000, message: 'Authentication error' }] }), 'application/json');
    const day = url.searchParams.get('date');
    return send(200, day ? 'domain\nradar-dated.example\n' : 'domain\nradar-one.example\nradar-two.example\n', 'text/csv');
  }
  send(404, 'no such path');
}

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url!, ua: req.headers['user-agent'], auth: req.headers.authorization });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    // A little latency, so that requests sent at once would overlap.
    setTimeout(() => answer(req, res), 30);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const urls = (): Partial<Record<ListProvider, string>> => ({
  tranco: `http://127.0.0.1:${port}/tranco`,
  crux: `http://127.0.0.1:${port}/crux/`,
  majestic: `http://127.0.0.1:${port}/majestic`,
  radar: `http://127.0.0.1:${port}/radar`,
});
const resolve = (spec: string, cacheDir: string, extra: { day?: string; env?: NodeJS.ProcessEnv; providerUrls?: Partial<Record<ListProvider, string>> } = {}) =>
  resolveNamedList(spec, { cacheDir, day: extra.day ?? '2026-11-26', userAgent: UA, providerUrls: extra.providerUrls ?? urls(), env: extra.env ?? {} });

async function targets(file: string, sourceName: string): Promise<TargetInput[]> {
  const out: TargetInput[] = [];
  for await (const t of readDomainList(file, { sourceName }).targets) out.push(t);
  return out;
}
const since = (n: number) => seen.slice(n).map((s) => s.path);

describe('selectors', () => {
  it('names by provider are told from paths; each provider takes its own forms', () => {
    expect(isNamedList('tranco:latest')).toBe(true);
    expect(isNamedList('CrUX:202610')).toBe(true);
    expect(isNamedList('lists/top-1m.csv')).toBe(false);
    expect(isNamedList('./tranco:latest')).toBe(false);
    expect(parseListSelector('tranco:id:K3J8W')).toEqual({ provider: 'tranco', kind: 'id', id: 'K3J8W' });
    expect(parseListSelector('crux:202610:DE')).toEqual({ provider: 'crux', kind: 'month', month: '202610', country: 'de' });
    expect(() => parseListSelector('tranco:2026-02-30')).toThrow(/tranco:latest, tranco:YYYY-MM-DD or tranco:id:ID/);
    expect(() => parseListSelector('crux:202613')).toThrow(/crux:YYYYMM/);
    expect(() => parseListSelector('majestic:2026-11-20')).toThrow(/majestic:latest/);
  });
});

describe('top lists by name, from a server that answers as the providers do', () => {
  it('tranco:latest: the API names the list, its file is downloaded once and read as rank,domain', async () => {
    const cache = tempDir();
    const n = seen.length;
    const l = await resolve('tranco:latest', cache);
    expect(since(n)).toEqual(['/tranco/api/lists/date/latest', '/tranco/download/L7XQ2/1000000']);
    expect(l.record).toMatchObject({ provider: 'tranco', selector: 'latest', resolved_date: '2026-11-25', list_id: 'L7XQ2', url: `http://127.0.0.1:${port}/tranco/download/L7XQ2/1000000`, bytes: TRANCO_LISTS.L7XQ2!.length, note: null });
    expect(l.record.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(l.sourceName).toBe('tranco:id:L7XQ2 (2026-11-25)');
    expect(l.fromCache).toBe(false);
    const t = await targets(l.file, l.sourceName);
    expect(t.map((x) => [x.rank, x.target, x.source])).toEqual([
      [1, 'alpha.example', 'tranco:id:L7XQ2 (2026-11-25)'],
      [2, 'beta.example', 'tranco:id:L7XQ2 (2026-11-25)'],
      [3, 'gamma.example', 'tranco:id:L7XQ2 (2026-11-25)'],
      [4, 'delta.example', 'tranco:id:L7XQ2 (2026-11-25)'],
    ]);
    expect(seen.slice(n).every((s) => s.ua === UA)).toBe(true);
    // The same day again: the cache answers, no request at all.
    const again = await resolve('tranco:latest', cache);
    expect(since(n)).toHaveLength(2);
    expect(again.fromCache).toBe(true);
    expect(again.record).toEqual(l.record);
    expect(again.file).toBe(l.file);
  });

  it('tranco:DATE, tranco:id:ID; an unknown id is an error naming it', async () => {
    const cache = tempDir();
    const n = seen.length;
    const d = await resolve('tranco:2026-11-20', cache);
    expect(d.record).toMatchObject({ selector: '2026-11-20', resolved_date: '2026-11-20', list_id: 'K3J8W', note: null });
    // The id of a list already downloaded under another selector: its metadata is asked, its file is not.
    const i = await resolve('tranco:id:K3J8W', cache);
    expect(i.record).toMatchObject({ selector: 'id:K3J8W', list_id: 'K3J8W', sha256: d.record.sha256 });
    expect(since(n)).toEqual(['/tranco/api/lists/date/2026-11-20', '/tranco/download/K3J8W/1000000', '/tranco/api/lists/id/K3J8W']);
    await expect(resolve('tranco:id:NOPE1', cache)).rejects.toThrow(/tranco:id:NOPE1: Tranco has no list with id NOPE1/);
    await expect(resolve('tranco:2019-01-01', cache)).rejects.toThrow(/a list id that is not one \("\.\.\/\.\.\/evil"\)/);
  });

  it('a date not yet published walks back day by day (404, then not available), and says so', async () => {
    const n = seen.length;
    const l = await resolve('tranco:2026-11-26', tempDir());
    expect(since(n)).toEqual(['/tranco/api/lists/date/2026-11-26', '/tranco/api/lists/date/2026-11-25', '/tranco/api/lists/date/2026-11-24', '/tranco/download/W24AB/1000000']);
    expect(l.record).toMatchObject({ selector: '2026-11-26', resolved_date: '2026-11-24', list_id: 'W24AB', note: 'no Tranco list for 2026-11-26 yet: walked back 2 days to the list of 2026-11-24' });
    // Past the bound: an error, after at most 8 requests.
    const m = seen.length;
    await expect(resolve('tranco:2026-10-01', tempDir())).rejects.toThrow(/no list for 2026-10-01 nor for the 7 days before it/);
    expect(since(m)).toHaveLength(8);
  }, 30_000);

  it('one request at a time per provider, however many lists are resolved at once', async () => {
    maxInFlight = 0;
    const cache = tempDir();
    await Promise.all([resolve('tranco:latest', cache, { day: '2026-11-27' }), resolve('tranco:2026-11-20', cache, { day: '2026-11-27' })]);
    expect(maxInFlight).toBe(1);
  }, 30_000);

  it('crux:YYYYMM and crux:YYYYMM:CC: the repository files below the raw base URL, origins to roots, rank buckets kept', async () => {
    const cache = tempDir();
    const g = await resolve('crux:202610', cache);
    expect(g.record).toMatchObject({ provider: 'crux', selector: '202610', resolved_date: '2026-10', list_id: null, url: `http://127.0.0.1:${port}/crux/data/global/202610.csv.gz` });
    expect(g.file.endsWith('.csv.gz')).toBe(true);
    expect((await targets(g.file, g.sourceName)).map((t) => [t.target, t.rank, t.source])).toEqual([
      ['alpha.example', 1000, 'crux:202610'],
      ['beta.example', 1000, 'crux:202610'],
      ['gamma.example', 5000, 'crux:202610'],
    ]);
    const de = await resolve('crux:202610:DE', cache);
    expect(de.record.url).toBe(`http://127.0.0.1:${port}/crux/data/country/de/202610.csv.gz`);
    expect((await targets(de.file, de.sourceName)).map((t) => t.target)).toEqual(['spiegel.example']);
  });

  it('majestic:latest: majestic_million.csv, GlobalRank as the rank, dated the day it was fetched', async () => {
    const l = await resolve('majestic:latest', tempDir());
    expect(l.record).toMatchObject({ provider: 'majestic', resolved_date: '2026-11-26', url: `http://127.0.0.1:${port}/majestic/majestic_million.csv` });
    expect((await targets(l.file, l.sourceName)).map((t) => [t.rank, t.target, t.source])).toEqual([
      [1, 'maj-one.example', 'majestic:2026-11-26'],
      [2, 'maj-two.example', 'majestic:2026-11-26'],
    ]);
  });

  it('radar: the token goes in a Bearer header; missing, the error names the variable; refused, it says so', async () => {
    const cache = tempDir();
    const n = seen.length;
    await expect(resolve('radar:latest', cache)).rejects.toThrow(ListConfigError);
    await expect(resolve('radar:latest', cache)).rejects.toThrow(new RegExp(RADAR_TOKEN_ENV));
    expect(since(n)).toEqual([]);
    await expect(resolve('radar:latest', cache, { env: { [RADAR_TOKEN_ENV]: 'wrong' } })).rejects.toThrow(/Cloudflare refused the token in CLOUDFLARE_API_TOKEN \(HTTP 401\)/);
    const l = await resolve('radar:latest', cache, { env: { [RADAR_TOKEN_ENV]: TOKEN } });
    expect(seen.at(-1)).toMatchObject({ path: '/radar/radar/datasets/ranking_top_1000000', auth: `Bearer ${TOKEN}`, ua: UA });
    expect(l.record).toMatchObject({ provider: 'radar', selector: 'latest', list_id: 'ranking_top_1000000', resolved_date: '2026-11-26' });
    expect((await targets(l.file, l.sourceName)).map((t) => [t.rank, t.target])).toEqual([[1, 'radar-one.example'], [2, 'radar-two.example']]);
    const d = await resolve('radar:2026-11-20', cache, { env: { [RADAR_TOKEN_ENV]: TOKEN } });
    expect(seen.at(-1)!.path).toBe('/radar/radar/datasets/ranking_top_1000000?date=2026-11-20');
    expect((await targets(d.file, d.sourceName)).map((t) => [t.target, t.source])).toEqual([['radar-dated.example', 'radar:2026-11-20']]);
  });

  it('the provider down: the newest cached list of the selector stands in, and the record says so', async () => {
    const cache = tempDir();
    const first = await resolve('tranco:latest', cache, { day: '2026-11-25' });
    const down = `http://127.0.0.1:${await closedPort()}`;
    const n = seen.length;
    const l = await resolve('tranco:latest', cache, { day: '2026-11-26', providerUrls: { tranco: down } });
    expect(since(n)).toEqual([]);
    expect(l.offline).toBe(true);
    expect(l.record).toMatchObject({ list_id: 'L7XQ2', sha256: first.record.sha256 });
    expect(l.record.note).toMatch(/^tranco could not be reached \(.*ECONNREFUSED.*\): the list cached on \d{4}-\d{2}-\d{2} is used$/);
    // Nothing cached for a selector: the error says the provider could not be reached.
    await expect(resolve('majestic:latest', cache, { providerUrls: { majestic: down } })).rejects.toThrow(/majestic:latest: the provider could not be reached and no cached copy exists/);
  });
});

describe('adsnap crawl --domains PROVIDER:SELECTOR', () => {
  it('crawls the list by name: targets.source names it, the manifest records it; a second run asks nothing', async () => {
    const out = tempDir();
    const dead = await closedPort();
    const args = ['crawl', '--domains', 'tranco:2026-11-20', '--list-provider-url', `tranco=http://127.0.0.1:${port}/tranco`, '--top', '2', '--out', out, '--snapshot-date', '2026-11-21', '--no-sellers', '--progress', 'none', '--connect-to', `:443:127.0.0.1:${dead}`, '--connect-to', `:80:127.0.0.1:${dead}`, '--retries', '0'];
    const n = seen.length;
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('tranco:2026-11-20 is tranco:id:K3J8W (2026-11-20)');
    expect(since(n)).toEqual(['/tranco/api/lists/date/2026-11-20', '/tranco/download/K3J8W/1000000']);
    const manifestFile = r.stdout.match(/manifest: (\S+)/)![1]!;
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    expect(manifest.named_list).toMatchObject({ provider: 'tranco', selector: '2026-11-20', resolved_date: '2026-11-20', list_id: 'K3J8W', url: `http://127.0.0.1:${port}/tranco/download/K3J8W/1000000`, bytes: TRANCO_LISTS.K3J8W!.length, from_cache: false, offline: false });
    expect(manifest.inputs.limit).toBe(2);
    const db = await openSnapshotDb(out);
    try {
      expect(await db.rows("SELECT target, rank, source FROM targets ORDER BY rank")).toEqual([
        { target: 'kilo.example', rank: 1, source: 'tranco:id:K3J8W (2026-11-20)' },
        { target: 'lima.example', rank: 2, source: 'tranco:id:K3J8W (2026-11-20)' },
      ]);
    } finally {
      db.close();
    }
    expect(path.dirname(path.dirname(await firstCached(out)))).toBe(path.join(out, '_lists'));
    // The same command again: the list comes from the cache (no request), the run is complete.
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('(from the list cache)');
    expect(again.stdout).toContain('already complete');
    expect(since(n)).toHaveLength(2);
  }, 120_000);

  it('a Radar list without its token is a usage error naming the variable; nothing is created', async () => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(['crawl', '--domains', 'radar:latest', '--out', out, '--progress', 'none'], { env: { [RADAR_TOKEN_ENV]: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--domains radar:latest: radar lists need a Cloudflare API token .* CLOUDFLARE_API_TOKEN/);
  });
});

async function firstCached(out: string): Promise<string> {
  const { readdir } = await import('node:fs/promises');
  const dir = path.join(out, '_lists', 'tranco');
  return path.join(dir, (await readdir(dir)).find((f) => f.endsWith('.csv'))!);
}
