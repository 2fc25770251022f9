/**
 * `adsnap verify` against a night crawled from fixture hosts serving the IAB Tech Lab Supply Chain
 * Validation guidance's own examples (test/fixtures/verify-web): §3.5's verdicts for sites and apps,
 * with and without inventorypartnerdomain (cases A, B.1, B.2, C of §3.4), §4.11's worked examples
 * and WEB-1 for the §4.6 SupplyChain checks, and bad lines as rows.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveNight } from '../src/report/derived.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { derivedKey, readMarker } from '../src/sql/derived.js';
import { attachLookups, keptLookupsPath } from '../src/verify/lookups.js';
import { onConnections, recordSource, runVerify } from '../src/verify/run.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { repoRoot } from './helpers/corpus.js';
import { finished, runCli, spawnCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('verify');
const fixtures = path.join(repoRoot, 'test', 'fixtures');
const NIGHT = '2026-11-20';

type Row = Record<string, unknown> & { schain_nodes: Record<string, unknown>[] | null; schain_issues: string[] | null };

let web: Simweb;
let root: string;
let tmp: string;
const rows = new Map<string, Row>();
let lines: Row[] = [];
let stderr = '';

type Node = [asi: string, sid: string, hp: number];
const chain = (nodes: Node[], complete = 1) => ({ ver: '1.0', complete, nodes: nodes.map(([asi, sid, hp]) => ({ asi, sid, hp })) });
const site = (id: string, domain: string, o: { pub?: string; ipd?: string; adSystem?: string; nodes?: Node[]; complete?: number } = {}) =>
  JSON.stringify({
    id,
    site: { domain, ...(o.pub ? { publisher: { id: o.pub } } : {}), ...(o.ipd ? { inventorypartnerdomain: o.ipd } : {}) },
    ...(o.adSystem ? { ad_system: o.adSystem } : {}),
    ...(o.nodes ? { source: { schain: chain(o.nodes, o.complete) } } : {}),
  });
const app = (id: string, a: Record<string, unknown>, adSystem = 'ssp.com') => JSON.stringify({ id, app: a, ad_system: adSystem });
const STORE = 'https://ctvappstore.com/details';

/** One line per case; the test of each case finds its row by id. */
const REQUESTS = [
  // §4.11 worked examples on examplepublisher.com
  site('pub-direct', 'examplepublisher.com', { pub: '184003', nodes: [['exchange.com', '184003', 1]] }),
  site('ad-network', 'examplepublisher.com', { nodes: [['adnetwork.com', '1200', 1], ['exchange.com', '184033B', 1]] }),
  site('pt-publisher', 'examplepublisher.com', { nodes: [['eb-exchange.com', 'pub-0978064532142215', 1], ['eb-participant.com', '184044', 1]] }),
  site('pt-reseller', 'examplepublisher.com', { nodes: [['reseller-exchange.com', '215', 1], ['eb-exchange.com', 'pub-3153065230153281', 1], ['eb-participant.com', '185176', 1]] }),
  site('pt-exchange', 'examplepublisher.com', { nodes: [['exchange-1.com', '2000', 1], ['passthrough-exchange.com', 'exchange1_2000', 1]] }),
  site('pt-intermediary', 'examplepublisher.com', { nodes: [['intermediary-exchange.com', 'ABC', 1], ['exchange-1.com', '2001', 1], ['passthrough-exchange.com', 'exchange1_2001', 1]] }),
  site('eb-direct', 'examplepublisher.com', { nodes: [['eb-participant.com', '184044-B', 1]] }),
  // WEB-1: server-side wrapper (hp=0) > SSP, on a www host of the listed site
  site('web-1', 'www.publishersite.com', { nodes: [['server-side-wrapper.com', 'ssw-pub-001', 0], ['ssp.com', 'ssw-ssp-001', 1]] }),
  site('subdomain-own', 'video.publishersite.com', { pub: 'video-001', adSystem: 'ssp.com' }),
  site('subdomain-not-root', 'video.publishersite.com', { pub: 'ssw-ssp-001', adSystem: 'ssp.com' }),
  site('case-folded', 'examplepublisher.com', { pub: '184033b', adSystem: 'exchange.com' }),
  site('unauthorized', 'examplepublisher.com', { pub: '999', adSystem: 'exchange.com' }),
  site('nonparticipating', 'no-adstxt.com', { pub: '1', adSystem: 'exchange.com' }),
  site('site-not-crawled', 'elsewhere.com', { pub: '1', adSystem: 'exchange.com' }),
  // §3.4 cases as sites
  site('A-site', 'programmera.com', { pub: 'abcde', adSystem: 'ssp.com' }),
  site('B1-site', 'vmvpdb.com', { pub: 'vwxyz', adSystem: 'ssp.com' }),
  site('B2-site', 'vmvpdb.com', { pub: 'abcde', adSystem: 'ssp.com', ipd: 'programmerA.com' }),
  site('C-site', 'programmera.com', { pub: 'vwxyz', adSystem: 'ssp.com', ipd: 'vmvpdB.com' }),
  site('ipd-not-declared', 'vmvpdb.com', { pub: 'abcde', adSystem: 'ssp.com', ipd: 'other.com' }),
  site('ipd-partner-no-file', 'programmera.com', { pub: 'zzz', adSystem: 'ssp.com', ipd: 'nofile-partner.com' }),
  site('ipd-partner-not-listed', 'programmera.com', { pub: 'zzz', adSystem: 'ssp.com', ipd: 'vmvpdb.com' }),
  site('ipd-no-file', 'no-adstxt.com', { pub: 'abcde', adSystem: 'ssp.com', ipd: 'programmera.com' }),
  // §3.4 cases as apps (the guidance's OpenRTB declarations)
  app('A-app', { bundle: '12345', storeurl: `${STORE}/12345/programmerA`, publisher: { id: 'abcde' } }),
  app('B1-app', { bundle: '67890', storeurl: `${STORE}/67890/vmvpdB`, publisher: { id: 'vwxyz' } }),
  app('B2-app', { bundle: '67890', storeurl: `${STORE}/67890/vmvpdB`, inventorypartnerdomain: 'programmerA.com', publisher: { id: 'abcde' } }),
  app('C-app', { bundle: '12345', storeurl: `${STORE}/12345/programmerA`, inventorypartnerdomain: 'vmvpdB.com', publisher: { id: 'vwxyz' } }),
  app('app-by-bundle', { bundle: '12345', publisher: { id: 'abcde' } }),
  app('app-no-developer', { storeurl: `${STORE}/99999/nodev`, publisher: { id: 'abcde' } }),
  app('app-not-crawled', { bundle: 'com.unknown', publisher: { id: 'abcde' } }),
  // §4.6 checks that fail
  site('chain-break', 'examplepublisher.com', { nodes: [['adnetwork.com', '1200', 1], ['exchange.com', '184003', 1]] }),
  site('not-publisher', 'examplepublisher.com', { nodes: [['exchange.com', '184033B', 1]] }),
  site('not-publisher-incomplete', 'examplepublisher.com', { nodes: [['adnetwork.com', '1200', 1], ['exchange.com', '184033B', 1]], complete: 0 }),
  site('seller-not-found', 'examplepublisher.com', { pub: '184003', nodes: [['exchange.com', '777', 1]] }),
  site('no-payment-node', 'publishersite.com', { pub: 'ssw-ssp-001', adSystem: 'ssp.com', nodes: [['server-side-wrapper.com', 'ssw-pub-001', 0]] }),
  JSON.stringify({ id: 'malformed', site: { domain: 'examplepublisher.com', publisher: { id: '184003' } }, ad_system: 'exchange.com', source: { schain: { complete: 1, nodes: 'x' } } }),
  JSON.stringify({ id: 'ortb-2.5', site: { domain: 'examplepublisher.com' }, source: { ext: { schain: chain([['exchange.com', '184003', 1]]) } } }),
  JSON.stringify({ id: 'ortb-2.4', site: { domain: 'examplepublisher.com' }, ext: { schain: chain([['exchange.com', '184003', 1]]) } }),
  // bad lines
  '{"id":"cut","site":{"domain":"examplepub',
  JSON.stringify({ id: 'neither', device: { ua: 'x' } }),
  '',
  '[1, 2]',
];

beforeAll(async () => {
  web = await startSimweb({ hosts: 0, apps: 0, hostile: false, latency: { minMs: 0, maxMs: 1 }, fixturesDir: path.join(fixtures, 'verify-web') });
  tmp = tempDir();
  root = path.join(tmp, 'night');
  const crawl = await runCli(['crawl', '--domains', path.join(fixtures, 'verify-domains.txt'), '--apps', path.join(fixtures, 'verify-apps.txt'), '--out', root, '--progress', 'none', '--snapshot-date', NIGHT, ...web.connectArgs]);
  expect(crawl.code, crawl.stderr).toBe(0);
  const requests = path.join(tmp, 'requests.jsonl');
  writeFileSync(requests, REQUESTS.join('\n') + '\n');
  const r = await runCli(['verify', root, '--requests', requests]);
  expect(r.code, r.stderr).toBe(0);
  stderr = r.stderr;
  lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Row);
  for (const row of lines) if (typeof row.id === 'string') rows.set(row.id, row);
}, 120_000);

afterAll(async () => {
  await web?.close();
});

function verdict(id: string) {
  const r = rows.get(id);
  if (!r) throw new Error(`no row for ${id}`);
  return { authorization: r.authorization, reason: r.authorization_reason, decided_by: r.decided_by, host: r.decided_by_host, relationship: r.relationship, match: r.seller_match };
}
const chainOf = (id: string) => ({ valid: rows.get(id)!.schain_valid, issues: rows.get(id)!.schain_issues });

describe('adsnap verify: one row per line, in input order', () => {
  it('every line is a row with its number; bad lines carry an error code', () => {
    expect(lines.map((r) => r.line_no)).toEqual(REQUESTS.map((_, i) => i + 1));
    const n = REQUESTS.length;
    expect(lines.slice(n - 4).map((r) => [r.line_no, r.error, r.authorization])).toEqual([
      [n - 3, 'not_json', null], // a cut line
      [n - 2, 'no_site_or_app', null],
      [n - 1, 'empty_line', null],
      [n, 'not_an_object', null],
    ]);
    expect(rows.get('neither')!.line_no).toBe(n - 2);
    expect(stderr).toMatch(new RegExp(`${n} lines against ${NIGHT}: .*4 bad lines`));
  });
});

describe('§3.5 verdicts, sites (§4.11 worked examples; ads.txt 1.1 §3.1)', () => {
  const ok = (relationship: string, host = 'examplepublisher.com') => ({ authorization: 'authorized', reason: 'seller_listed', decided_by: 'ads.txt', host, relationship, match: 'exact' });
  it('publisher direct', () => expect(verdict('pub-direct')).toEqual(ok('DIRECT')));
  it('ad network: the exchange is the ad system, its id a RESELLER record', () => expect(verdict('ad-network')).toEqual(ok('RESELLER')));
  it('passthrough exchanges: authorized through the records of the last node', () => {
    for (const id of ['pt-publisher', 'pt-reseller', 'pt-exchange', 'pt-intermediary']) expect(verdict(id), id).toEqual(ok('RESELLER'));
    expect(verdict('eb-direct')).toEqual(ok('DIRECT'));
  });
  it('WEB-1 on www.: the listed site’s file decides', () => expect(verdict('web-1')).toEqual(ok('DIRECT', 'publishersite.com')));
  it('a declared subdomain reads its own file, not the root’s', () => {
    expect(verdict('subdomain-own')).toEqual(ok('DIRECT', 'video.publishersite.com'));
    expect(verdict('subdomain-not-root')).toMatchObject({ authorization: 'unauthorized', reason: 'seller_not_listed', host: 'video.publishersite.com' });
  });
  it('seller ids match case-folded when no id is equal byte for byte', () => expect(verdict('case-folded')).toEqual({ ...ok('RESELLER'), match: 'case_folded' }));
  it('unauthorized, nonparticipating, not_in_snapshot', () => {
    expect(verdict('unauthorized')).toMatchObject({ authorization: 'unauthorized', reason: 'seller_not_listed', relationship: null, match: null });
    expect(verdict('nonparticipating')).toMatchObject({ authorization: 'nonparticipating', reason: 'no_valid_file', host: 'no-adstxt.com' });
    expect(rows.get('nonparticipating')!.file_status).toBe('not_found');
    expect(verdict('site-not-crawled')).toMatchObject({ authorization: 'not_in_snapshot', reason: 'site_not_in_snapshot', decided_by: null });
  });
});

describe('§3.5 with and without inventorypartnerdomain (§3.4 cases)', () => {
  it('case A and B.1 as sites: the site’s own file', () => {
    expect(verdict('A-site')).toMatchObject({ authorization: 'authorized', reason: 'seller_listed', host: 'programmera.com' });
    expect(verdict('B1-site')).toMatchObject({ authorization: 'authorized', reason: 'seller_listed', host: 'vmvpdb.com' });
  });
  it('case B.2 and C as sites: the partner’s ads.txt decides', () => {
    expect(verdict('B2-site')).toEqual({ authorization: 'authorized', reason: 'partner_seller_listed', decided_by: 'partner ads.txt', host: 'programmera.com', relationship: 'DIRECT', match: 'exact' });
    expect(verdict('C-site')).toMatchObject({ authorization: 'authorized', reason: 'partner_seller_listed', host: 'vmvpdb.com' });
  });
  it('a partner the file does not declare is unauthorized; a declared one without a valid ads.txt inconclusive', () => {
    expect(verdict('ipd-not-declared')).toMatchObject({ authorization: 'unauthorized', reason: 'partner_not_declared', decided_by: 'ads.txt' });
    expect(verdict('ipd-partner-no-file')).toMatchObject({ authorization: 'inconclusive', reason: 'partner_no_valid_file', decided_by: 'partner ads.txt', host: 'nofile-partner.com' });
    expect(verdict('ipd-partner-not-listed')).toMatchObject({ authorization: 'unauthorized', reason: 'partner_seller_not_listed', host: 'vmvpdb.com' });
    expect(verdict('ipd-no-file')).toMatchObject({ authorization: 'inconclusive', reason: 'no_valid_file' });
  });
  it('cases A, B.1, B.2, C as apps: store → developer host → app-ads.txt (→ partner ads.txt)', () => {
    expect(verdict('A-app')).toMatchObject({ authorization: 'authorized', reason: 'seller_listed', decided_by: 'app-ads.txt', host: 'devsite.programmera.com' });
    expect(verdict('B1-app')).toMatchObject({ authorization: 'authorized', reason: 'seller_listed', decided_by: 'app-ads.txt', host: 'devsite.vmvpdb.com' });
    expect(verdict('B2-app')).toMatchObject({ authorization: 'authorized', reason: 'partner_seller_listed', decided_by: 'partner ads.txt', host: 'programmera.com' });
    expect(verdict('C-app')).toMatchObject({ authorization: 'authorized', reason: 'partner_seller_listed', decided_by: 'partner ads.txt', host: 'vmvpdb.com' });
  });
  it('an app by bundle alone; a store record without a developer URL; an app not crawled', () => {
    expect(verdict('app-by-bundle')).toMatchObject({ authorization: 'authorized', host: 'devsite.programmera.com' });
    expect(verdict('app-no-developer')).toMatchObject({ authorization: 'nonparticipating', reason: 'no_developer_host', decided_by: null });
    expect(verdict('app-not-crawled')).toMatchObject({ authorization: 'not_in_snapshot', reason: 'app_not_in_snapshot' });
  });
});

describe('§4.6 SupplyChain checks', () => {
  it('the worked examples are valid chains; passthrough entries are reported', () => {
    for (const id of ['pub-direct', 'ad-network', 'pt-publisher', 'pt-reseller', 'pt-exchange', 'eb-direct']) expect(chainOf(id), id).toEqual({ valid: true, issues: [] });
    expect(rows.get('pt-publisher')!.schain_nodes!.map((n) => n.is_passthrough)).toEqual([true, false]);
    expect(rows.get('ad-network')!.schain_nodes![1]).toEqual({ asi: 'exchange.com', sid: '184033B', hp: 1, found: true, seller_type: 'INTERMEDIARY', name: 'Ad Network', domain: 'adnetwork.com', is_passthrough: false });
  });
  it('WEB-1: the hp=0 wrapper node is skipped (its sellers.json was not crawled)', () => {
    expect(chainOf('web-1')).toEqual({ valid: true, issues: [] });
    expect(rows.get('web-1')!.schain_nodes![0]).toMatchObject({ asi: 'server-side-wrapper.com', hp: 0, found: null });
  });
  it('a node whose ad system has no readable sellers.json: valid is unknown', () => {
    expect(chainOf('pt-intermediary')).toEqual({ valid: null, issues: ['sellers_json_missing'] });
  });
  it('a break in the chain, a first node that is not a PUBLISHER or not DIRECT, an unknown seller, no payment node', () => {
    expect(chainOf('chain-break')).toEqual({ valid: false, issues: ['chain_break'] });
    expect(chainOf('not-publisher')).toEqual({ valid: false, issues: ['first_node_not_publisher', 'first_node_not_direct'] });
    expect(chainOf('not-publisher-incomplete')).toEqual({ valid: true, issues: [] });
    expect(chainOf('seller-not-found')).toEqual({ valid: false, issues: ['node_seller_not_found', 'first_node_not_direct'] });
    expect(chainOf('no-payment-node')).toEqual({ valid: false, issues: ['no_payment_node'] });
    expect(chainOf('malformed')).toEqual({ valid: false, issues: ['schain_malformed', 'no_payment_node'] });
  });
  it('the SupplyChain where OpenRTB 2.5 and 2.4 put it; none gives NULL', () => {
    for (const id of ['ortb-2.5', 'ortb-2.4']) {
      expect(chainOf(id), id).toEqual({ valid: true, issues: [] });
      expect(verdict(id), id).toMatchObject({ authorization: 'authorized', relationship: 'DIRECT' });
    }
    expect(chainOf('A-site')).toEqual({ valid: null, issues: null });
  });
});

describe('adsnap verify: formats, stdin, and what exits 2', () => {
  it('csv from stdin, parquet to a file', async () => {
    const input = REQUESTS.slice(0, 2).join('\n') + '\n';
    const csv = await runCli(['verify', root, '--requests', '-', '--format', 'csv', '--night', NIGHT], { input });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toMatch(/^line_no,id,error,kind,site_domain,/);
    expect(csv.stdout).toMatch(/\n2,ad-network,,site,examplepublisher.com,.*,authorized,seller_listed,/);
    const out = path.join(tmp, 'v.parquet');
    const pq = await runCli(['verify', root, '--requests', '-', '--format', 'parquet', '--out', out], { input });
    expect(pq.code, pq.stderr).toBe(0);
    expect(readFileSync(out).subarray(0, 4).toString()).toBe('PAR1');
  });
  it('a night the roots do not hold, a root that is not a snapshot, an --out in no directory: exit 2, nothing written', async () => {
    const requests = path.join(tmp, 'one.jsonl');
    writeFileSync(requests, REQUESTS[0] + '\n');
    const out = path.join(tmp, 'never.jsonl');
    const night = await runCli(['verify', root, '--requests', requests, '--night', '2020-01-01', '--out', out]);
    expect(night.code).toBe(2);
    expect(night.stderr).toContain(`the roots hold only ${NIGHT}`);
    const notRoot = await runCli(['verify', path.join(tmp, 'nothing-here'), '--requests', requests, '--out', out]);
    expect(notRoot.code).toBe(2);
    expect(notRoot.stderr).toMatch(/nothing-here: no such directory \(a snapshot root is/);
    expect(existsSync(out)).toBe(false);
    const noDir = await runCli(['verify', root, '--requests', requests, '--out', path.join(tmp, 'no-dir', 'v.jsonl')]);
    expect([noDir.code, noDir.stderr]).toEqual([2, expect.stringContaining('no-dir/v.jsonl: no such directory')]);
  });
});

describe('adsnap verify: stopped by SIGTERM', () => {
  it('while its batches run: exit 1 saying so, its temporary files removed, --out left as it was', async () => {
    const requests = path.join(tmp, 'many.jsonl');
    writeFileSync(requests, Array.from({ length: 6000 }, () => REQUESTS.join('\n')).join('\n') + '\n');
    const out = path.join(tmp, 'kept.jsonl');
    writeFileSync(out, 'the last run\n');
    // Its own temporary folder: the run's private folder and DuckDB's spill folder are made there.
    const own = path.join(tmp, 'own-tmp');
    mkdirSync(own);
    const child = spawnCli(['verify', root, '--requests', requests, '--out', out], undefined, { TMPDIR: own, ADSNAP_VERIFY_TIMING: '1' });
    child.stdin!.end();
    // The lines are stored: the batches (about 250,000 lines of them) are running.
    child.stderr!.on('data', (d: Buffer) => {
      if (/^lines: /m.test(String(d))) child.kill('SIGTERM');
    });
    const r = await finished(child);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('adsnap verify: stopped by SIGTERM; nothing written')]);
    expect(readdirSync(own)).toEqual([]);
    expect(readFileSync(out, 'utf8')).toBe('the last run\n');
    expect(readdirSync(tmp).filter((f) => f.startsWith('.kept.jsonl'))).toEqual([]);
  });
});

describe('adsnap verify: batches', () => {
  it('batches of three lines, two at once: the same rows in the same order, as JSON Lines, CSV (one header) and Parquet', async () => {
    const requests = path.join(tmp, 'batches.jsonl');
    writeFileSync(requests, REQUESTS.join('\n') + '\n');
    const out = (name: string) => path.join(tmp, name);
    const split = { requests, batchLines: 3 };
    // JSON Lines against the command's whole run (one batch; its rows checked by the cases above).
    const summary = await runVerify({ ...split, roots: [root], format: 'jsonl', out: out('split.jsonl') });
    expect(summary.lines).toBe(REQUESTS.length);
    expect(readFileSync(out('split.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))).toEqual(lines);
    await runVerify({ roots: [root], requests, format: 'csv', out: out('whole.csv') });
    expect(await runVerify({ ...split, roots: [root], format: 'csv', out: out('split.csv') })).toEqual(summary);
    expect(readFileSync(out('split.csv'), 'utf8')).toBe(readFileSync(out('whole.csv'), 'utf8'));
    await runVerify({ ...split, roots: [root], format: 'parquet', out: out('split.parquet') });
    const db = await openSnapshotDb(root);
    try {
      // The file's order (file_row_number): a parallel scan of its row groups (one a batch) gives them to list() in any order.
      const got = await db.rows(`SELECT list(CAST(line_no AS INTEGER) ORDER BY file_row_number) AS n, list(coalesce("authorization", error) ORDER BY file_row_number) AS a
        FROM read_parquet('${out('split.parquet')}', file_row_number = true)`);
      expect(got[0]!.n).toEqual(REQUESTS.map((_, i) => i + 1));
      expect(got[0]!.a).toEqual(lines.map((r) => r.authorization ?? r.error));
    } finally {
      db.close();
    }
  });

  it("the run's records cut from the night's first, then each batch judged against them: the same rows as each batch reading the night's", async () => {
    const requests = path.join(tmp, 'records.jsonl');
    writeFileSync(requests, REQUESTS.join('\n') + '\n');
    for (const records of ['run', 'night'] as const) {
      const out = path.join(tmp, `records-${records}.jsonl`);
      const summary = await runVerify({ roots: [root], requests, format: 'jsonl', out, batchLines: 4, records });
      expect(summary.lines).toBe(REQUESTS.length);
      expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l)), records).toEqual(lines);
    }
    // By default, the run's records on a night of many keys, more than the run's lines can name (four each).
    expect([recordSource(3_700_000, 100_000), recordSource(37_000_000, 1_000_000), recordSource(37_000_000, 10_000_000)]).toEqual(['night', 'run', 'night']);
  });

  it('out of memory with two batches at once: those batches again one at a time; another failure is thrown once both are done', async () => {
    const fake = (name: string) => ({ name }) as unknown as import('@duckdb/node-api').DuckDBConnection;
    const main = fake('main');
    const db = { connection: main, connect: async () => fake('second') };
    let inFlight = 0;
    const done: number[] = [];
    const alone: number[] = [];
    await onConnections(db, 2, 7, async () => {}, async (c, i) => {
      inFlight++;
      try {
        await new Promise((r) => setTimeout(r, 5));
        if (inFlight > 1 && i % 3 === 1) throw new Error('Out of Memory Error: failed to pin block');
        if (inFlight === 1) alone.push(i);
        done.push(i);
      } finally {
        inFlight--;
      }
    });
    expect([...done].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(alone).toContain(1);
    let finished = 0;
    const failing = onConnections(db, 2, 4, async () => {}, async (_c, i) => {
      await new Promise((r) => setTimeout(r, i === 0 ? 5 : 20));
      if (i === 0) throw new Error('Binder Error: no such column');
      finished++;
    });
    // Thrown after the second connection's batch (1) finished, and no batch started after the failure.
    await expect(failing).rejects.toThrow('Binder Error');
    expect(finished).toBe(1);
  });
});

describe('adsnap verify: the night\'s lookups kept with it', () => {
  const kept = (r: string) => readdirSync(path.join(r, '_derived', '_verify')).filter((f) => f.endsWith('.duckdb'));
  it('the first run against a night keeps them, the next reuses them (the same rows); a stale file is replaced', async () => {
    const copy = path.join(tempDir(), 'kept');
    cpSync(root, copy, { recursive: true });
    rmSync(path.join(copy, '_derived', '_verify'), { recursive: true, force: true });
    const requests = path.join(tmp, 'requests.jsonl');
    const first = await runCli(['verify', copy, '--requests', requests]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('lookups built and kept with the night');
    expect(kept(copy)).toEqual([path.basename(await keptLookupsPath(copy, NIGHT))]);
    const again = await runCli(['verify', copy, '--requests', requests]);
    expect(again.stderr).toContain('lookups kept with the night, reused');
    expect(again.stdout).toBe(first.stdout);
    // The suite's rows (its run, on the suite's root, kept them too).
    expect(first.stdout.trim().split('\n').map((l) => JSON.parse(l) as Row)).toEqual(lines);
    // A file of another key (another crawl of the night, another vocabulary) is never attached, and goes.
    const stale = path.join(copy, '_derived', '_verify', `${NIGHT}-000000000000000000000000.duckdb`);
    renameSync(path.join(copy, '_derived', '_verify', kept(copy)[0]!), stale);
    const third = await runCli(['verify', copy, '--requests', requests]);
    expect(third.stderr).toContain('lookups built and kept with the night');
    expect(kept(copy)).toEqual([path.basename(await keptLookupsPath(copy, NIGHT))]);
    // A kept file DuckDB cannot open (cut short) is built again, the rows the same.
    const current = path.join(copy, '_derived', '_verify', kept(copy)[0]!);
    writeFileSync(current, readFileSync(current).subarray(0, 4096));
    const fourth = await runCli(['verify', copy, '--requests', requests]);
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(fourth.stderr).toContain('lookups built and kept with the night');
    expect(fourth.stdout).toBe(first.stdout);
  });
  it('two roots, or a root where they cannot be kept: built for the run alone, the same rows', async () => {
    const copy = path.join(tempDir(), 'unwritable');
    cpSync(root, copy, { recursive: true });
    rmSync(path.join(copy, '_derived', '_verify'), { recursive: true, force: true });
    // A file where the folder would be: mkdir fails as on a read-only mount (tests run as root, whom modes do not stop).
    writeFileSync(path.join(copy, '_derived', '_verify'), '');
    const requests = path.join(tmp, 'requests.jsonl');
    const r = await runCli(['verify', copy, '--requests', requests]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('lookups built for this run');
    // Built for the run alone, the rows of a run that kept them (the suite's).
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Row)).toEqual(lines);
    expect(statSync(path.join(copy, '_derived', '_verify')).isFile()).toBe(true);
    const two = await runCli(['verify', root, copy, '--requests', requests]);
    expect(two.stderr).toContain('lookups built for this run');
  });
});

describe('adsnap verify: lookups that run out of memory', () => {
  it('are built again under twice the limit, then the limit asked is set again', async () => {
    const copy = path.join(tempDir(), 'small-memory');
    cpSync(root, copy, { recursive: true });
    rmSync(path.join(copy, '_derived', '_verify'), { recursive: true, force: true });
    const retries: string[] = [];
    const db = await openSnapshotDb(copy);
    try {
      await db.connection.run(`SET memory_limit = '2MB'`);
      const [asked] = await db.rows(`SELECT current_setting('memory_limit') AS m`);
      const source = await attachLookups(db, [copy], NIGHT, tempDir(), { limit: '2MB', onRetry: (next) => retries.push(next) });
      expect(source).toBe('kept');
      expect(retries[0]).toBe('4MB');
      const [row] = await db.rows(`SELECT current_setting('memory_limit') AS m, (SELECT count(*) FROM w.auth_recs) AS recs, (SELECT count(*) FROM w.auth_files) AS files`);
      expect(row!.m).toBe(asked!.m);
      // The same lookup as the suite's run built under 512 MB.
      const full = await openSnapshotDb(root);
      try {
        await attachLookups(full, [root], NIGHT, tempDir(), { limit: '512MB', onRetry: () => {} });
        const [want] = await full.rows('SELECT (SELECT count(*) FROM w.auth_recs) AS recs, (SELECT count(*) FROM w.auth_files) AS files');
        expect({ recs: row!.recs, files: row!.files }).toEqual(want);
        expect(want!.recs).toBeGreaterThan(0);
      } finally {
        full.close();
      }
    } finally {
      db.close();
    }
    // No temporary file left beside the kept one.
    expect(readdirSync(path.join(copy, '_derived', '_verify')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('adsnap verify: the record lookup grouped one range of subjects at a time', () => {
  it('ranges of a few records each give the same lookup as one range', async () => {
    const lookupsIn = async (recordsPerRange: number | undefined) => {
      const copy = path.join(tempDir(), `ranges-${recordsPerRange ?? 'one'}`);
      cpSync(root, copy, { recursive: true });
      rmSync(path.join(copy, '_derived', '_verify'), { recursive: true, force: true });
      const db = await openSnapshotDb(copy);
      try {
        await attachLookups(db, [copy], NIGHT, tempDir(), { limit: '512MB', onRetry: () => {}, recordsPerRange });
      } finally {
        db.close();
      }
      return keptLookupsPath(copy, NIGHT);
    };
    const one = await lookupsIn(undefined);
    const ranged = await lookupsIn(3);
    const db = await openSnapshotDb(root);
    try {
      await db.connection.run(`ATTACH '${one}' AS a (READ_ONLY)`);
      await db.connection.run(`ATTACH '${ranged}' AS b (READ_ONLY)`);
      const [n] = await db.rows('SELECT (SELECT count(*) FROM a.auth_recs) AS recs, (SELECT count(DISTINCT k) FROM a.auth_recs) AS keys');
      expect(n!.recs).toBeGreaterThan(10);
      expect(n!.keys).toBe(n!.recs);
      for (const [x, y] of [['a', 'b'], ['b', 'a']]) {
        const [d] = await db.rows(`SELECT count(*) AS n FROM (SELECT * FROM ${x}.auth_recs EXCEPT ALL SELECT * FROM ${y}.auth_recs)`);
        expect(d!.n).toBe(0);
      }
    } finally {
      db.close();
    }
  });
});

describe('authorization_at(night): the same verdicts in SQL', () => {
  it('sellers.json entries against their site, partner records with their partner, app records through the developer host', async () => {
    const db = await openSnapshotDb(root);
    try {
      const q = (where: string) =>
        db.rows(`SELECT kind, target, ad_system_domain, seller_id, inventorypartnerdomain, "authorization", authorization_reason, decided_by, seller_match
                 FROM authorization_at('${NIGHT}') WHERE ${where} ORDER BY ALL`);
      // ssp.com's entry video-001 names publishersite.com, whose file lists only ssw-ssp-001 (video-001 is its subdomain's).
      expect(await q(`named_by = 'sellers.json' AND ad_system_domain = 'ssp.com' AND target = 'publishersite.com'`)).toEqual([
        { kind: 'site', target: 'publishersite.com', ad_system_domain: 'ssp.com', seller_id: 'ssw-ssp-001', inventorypartnerdomain: null, authorization: 'authorized', authorization_reason: 'seller_listed', decided_by: 'ads.txt', seller_match: 'exact' },
        { kind: 'site', target: 'publishersite.com', ad_system_domain: 'ssp.com', seller_id: 'video-001', inventorypartnerdomain: null, authorization: 'unauthorized', authorization_reason: 'seller_not_listed', decided_by: 'ads.txt', seller_match: null },
      ]);
      expect(await q(`named_by = 'partner ads.txt' AND kind = 'app'`)).toEqual([
        { kind: 'app', target: `${STORE}/12345/programmerA`, ad_system_domain: 'ssp.com', seller_id: 'vwxyz', inventorypartnerdomain: 'vmvpdb.com', authorization: 'authorized', authorization_reason: 'partner_seller_listed', decided_by: 'partner ads.txt', seller_match: 'exact' },
        { kind: 'app', target: `${STORE}/67890/vmvpdB`, ad_system_domain: 'ssp.com', seller_id: 'abcde', inventorypartnerdomain: 'programmera.com', authorization: 'authorized', authorization_reason: 'partner_seller_listed', decided_by: 'partner ads.txt', seller_match: 'exact' },
      ]);
      // A file's own records, asked of the file itself: its validity decides, the match is exact.
      expect(await q(`named_by IN ('ads.txt', 'app-ads.txt') AND (target = 'publishersite.com' OR target = '${STORE}/12345/programmerA')`)).toEqual([
        { kind: 'app', target: `${STORE}/12345/programmerA`, ad_system_domain: 'ssp.com', seller_id: 'abcde', inventorypartnerdomain: null, authorization: 'authorized', authorization_reason: 'seller_listed', decided_by: 'app-ads.txt', seller_match: 'exact' },
        { kind: 'site', target: 'publishersite.com', ad_system_domain: 'ssp.com', seller_id: 'ssw-ssp-001', inventorypartnerdomain: null, authorization: 'authorized', authorization_reason: 'seller_listed', decided_by: 'ads.txt', seller_match: 'exact' },
      ]);
    } finally {
      db.close();
    }
  });

  it('authorization_counts_at counts its rows: per ad system, and over every ad system with each target once', async () => {
    const db = await openSnapshotDb(root, { derived: false });
    try {
      const diff = (a: string, b: string) => db.rows(`SELECT count(*) AS n FROM ((${a}) EXCEPT ALL (${b}))`);
      const counts = `SELECT * EXCLUDE (snapshot_date) FROM authorization_counts_at('${NIGHT}')`;
      const perSystem = `SELECT named_by, kind, false AS all_ad_systems, ad_system_domain, "authorization", authorization_reason, relationship, count(*) AS pairs, count(DISTINCT target) AS targets
                         FROM authorization_at('${NIGHT}') GROUP BY ALL`;
      const overAll = `SELECT named_by, kind, true, NULL, "authorization", authorization_reason, NULL, count(*), count(DISTINCT target) FROM authorization_at('${NIGHT}') GROUP BY named_by, kind, "authorization", authorization_reason`;
      const want = `${perSystem} UNION ALL ${overAll}`;
      expect(await diff(counts, want)).toEqual([{ n: 0 }]);
      expect(await diff(want, counts)).toEqual([{ n: 0 }]);
      // The partner paths to apps, over every ad system: two pairs, two apps, both authorized.
      expect(await db.rows(`SELECT pairs, targets FROM authorization_counts_at('${NIGHT}') WHERE all_ad_systems AND named_by = 'partner ads.txt' AND kind = 'app'`)).toEqual([{ pairs: 2, targets: 2 }]);
      // The derivation's pieces (each part over each range of subjects, then summed) add up to the
      // same counts: the apps' developer hosts, the partners and the sites sellers.json names fall in
      // different ranges here.
      const ranges = [['NULL', `'m'`], [`'m'`, `'q'`], [`'q'`, 'NULL']];
      const pieces = ['own', 'asked'].flatMap((part) => ranges.map(([lo, hi]) => `SELECT * FROM adsnap_authorization_counts_in('${NIGHT}', '${part}', ${lo}, ${hi})`));
      const summed = `SELECT named_by, kind, all_ad_systems, ad_system_domain, "authorization", authorization_reason, relationship, sum(pairs)::BIGINT, sum(targets)::BIGINT
                      FROM (${pieces.join(' UNION ALL ')}) GROUP BY ALL`;
      expect(await diff(summed, want)).toEqual([{ n: 0 }]);
      expect(await diff(want, summed)).toEqual([{ n: 0 }]);
      // The derivation itself, a range per two records: the partners' records and files computed
      // once for every range (RangedTable.shared) give the same counts.
      const copy = path.join(tempDir(), 'ranged');
      cpSync(root, copy, { recursive: true });
      await deriveNight(copy, NIGHT, { recordsPerRange: 2 });
      expect((await readMarker(copy, NIGHT))!.key).toBe(derivedKey());
      const derived = await openSnapshotDb(copy);
      try {
        const got = await derived.rows(`SELECT named_by, kind, all_ad_systems, ad_system_domain, "authorization", authorization_reason, relationship, pairs, targets
                                        FROM authorization_counts_at('${NIGHT}') ORDER BY ALL`);
        expect(got).toEqual(await db.rows(`${want} ORDER BY ALL`));
      } finally {
        derived.close();
      }
      const [spread] = await db.rows(`SELECT count(DISTINCT (r.lo IS NULL OR a.file_host >= r.lo) AND (r.hi IS NULL OR a.file_host < r.hi)) AS n FROM authorization_at('${NIGHT}') a,
        (VALUES ('m', 'q')) r(lo, hi) WHERE a.named_by IN ('partner ads.txt', 'sellers.json')`);
      expect(spread!.n).toBe(2);
    } finally {
      db.close();
    }
  });
});
