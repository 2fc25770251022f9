import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';
import { writeFileSync } from 'node:fs';

/**
 * Rows only from bodies read to their end: a body that fails half-way (reset, stall, trickle past
 * the deadline) leaves its `files` row and no record, variable, issue or seller row; a file
 * carried forward brings the earlier rows and only those.
 */
const tempDir = useTempDirs('bodies');
let web: LocalWeb;
let caPem: string;

const lines = (n: number, system = 'greenadexchange.com') => Array.from({ length: n }, (_, i) => `${system}, pub-${i}, DIRECT\n`).join('');

/** Writes `head`, then does `then` to the response (reset it, or leave it hanging). */
function partial(head: string, then: (res: ServerResponse) => void) {
  return (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(head.length * 4) });
    res.write(head, () => setTimeout(() => then(res), 50));
  };
}

beforeAll(async () => {
  const tls = await createTestTls();
  caPem = tls.caPem;
  web = await startLocalWeb(tls);
  for (const host of ['reset.test', 'stall.test', 'trickle.test', 'ok.test', 'sellers-reset.test']) web.reply(`https://${host}/robots.txt`, 200, 'User-agent: *\nAllow: /\n');
  web.reply('https://ok.test/ads.txt', 200, 'sellers-reset.test, 1, DIRECT\nCONTACT=x@ok.test\n');
  // 300 records and a variable are sent, then the connection is reset.
  web.route('https://reset.test/ads.txt', partial(lines(300) + 'CONTACT=a@reset.test\nbad line\n', (res) => res.socket?.destroy()));
  // The same, then nothing more: the request deadline ends it.
  web.route('https://stall.test/ads.txt', partial(lines(300) + 'bad line\n', () => undefined));
  // A record every 100 ms, forever.
  web.route('https://trickle.test/ads.txt', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    let i = 0;
    const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(`greenadexchange.com, t-${i++}, RESELLER\n`)), 100);
  });
  const sellers = JSON.stringify({ version: '1.0', sellers: Array.from({ length: 200 }, (_, i) => ({ seller_id: String(i), seller_type: 'PUBLISHER', name: `S${i}`, domain: `s${i}.test` })) });
  web.route('https://sellers-reset.test/sellers.json', partial(sellers.slice(0, sellers.length - 100), (res) => res.socket?.destroy()));
});

afterAll(async () => {
  await web?.close();
});

describe('rows only from bodies read to their end', () => {
  it('a reset, a stall and a trickle leave the file row and no row of the body', async () => {
    const dir = tempDir();
    const list = path.join(dir, 'list.txt');
    writeFileSync(list, 'reset.test\nstall.test\ntrickle.test\nok.test\n');
    const out = path.join(dir, 'out');
    await crawl({
      domains: list,
      outDir: out,
      snapshotDate: '2026-11-20',
      checkpointSeconds: 0,
      fetch: { connectTo: web.connectTo, caCerts: [caPem], retries: 0, totalTimeoutMs: { 'ads.txt': 1500, 'sellers.json': 1500 } },
    });
    const db = await openSnapshotDb(out);
    try {
      const files = await db.rows(`SELECT subject, file_kind, status, records FROM files WHERE file_kind IN ('ads.txt', 'sellers.json') ORDER BY subject`);
      expect(files).toEqual([
        { subject: 'ok.test', file_kind: 'ads.txt', status: 'ok', records: 1 },
        { subject: 'reset.test', file_kind: 'ads.txt', status: 'unreachable', records: 0 },
        { subject: 'sellers-reset.test', file_kind: 'sellers.json', status: 'unreachable', records: 0 },
        { subject: 'stall.test', file_kind: 'ads.txt', status: 'unreachable', records: 0 },
        { subject: 'trickle.test', file_kind: 'ads.txt', status: 'unreachable', records: 0 },
      ]);
      const orphans = async (table: string, col: string) =>
        (await db.rows(`SELECT ${col} AS s, count(*) AS n FROM ${table} WHERE ${col} <> 'ok.test' GROUP BY ALL ORDER BY s`)) as { s: string; n: number }[];
      expect(await orphans('ads_records', 'subject')).toEqual([]);
      expect(await orphans('ads_variables', 'subject')).toEqual([]);
      expect(await orphans('parse_issues', 'subject')).toEqual([]);
      expect(await orphans('sellers', 'ad_system_domain')).toEqual([]);
      expect(await db.rows(`SELECT count(*) AS n FROM ads_records WHERE subject = 'ok.test'`)).toEqual([{ n: 1 }]);
    } finally {
      db.close();
    }
  }, 60_000);

  it('an ads.txt cut at the byte cap on the next night is carried forward with the earlier rows only', async () => {
    const dir = tempDir();
    const list = path.join(dir, 'list.txt');
    writeFileSync(list, 'big.test\n');
    const out = path.join(dir, 'out');
    web.reply('https://big.test/robots.txt', 200, 'User-agent: *\nAllow: /\n');
    web.reply('https://big.test/ads.txt', 200, 'greenadexchange.com, a-1, DIRECT\ngreenadexchange.com, a-2, DIRECT\ngreenadexchange.com, a-3, RESELLER\n');
    const fetch = { connectTo: web.connectTo, caCerts: [caPem], retries: 0, maxBytes: { 'ads.txt': 4096 } };
    await crawl({ domains: list, outDir: out, snapshotDate: '2026-11-20', checkpointSeconds: 0, sellers: false, now: new Date('2026-11-20T03:00:00Z'), fetch });
    // The next night the file has grown past the cap (4 KiB here): 200 records, cut.
    web.reply('https://big.test/ads.txt', 200, lines(200, 'junk.test'));
    await crawl({ domains: list, outDir: out, snapshotDate: '2026-11-21', checkpointSeconds: 0, sellers: false, now: new Date('2026-11-21T03:00:00Z'), fetch });
    const db = await openSnapshotDb(out);
    try {
      const rows = await db.rows(`SELECT CAST(snapshot_date AS VARCHAR) AS d, seller_account_id AS id FROM ads_records WHERE subject = 'big.test' ORDER BY d, id`);
      const earlier = ['a-1', 'a-2', 'a-3'];
      expect(rows).toEqual([...earlier.map((id) => ({ d: '2026-11-20', id })), ...earlier.map((id) => ({ d: '2026-11-21', id }))]);
      const f = await db.rows(`SELECT status, obtained, records FROM files WHERE subject = 'big.test' AND file_kind = 'ads.txt' AND snapshot_date = DATE '2026-11-21'`);
      expect(f).toEqual([{ status: 'ok', obtained: 'carried_forward', records: 3 }]);
    } finally {
      db.close();
    }
  }, 60_000);
});
