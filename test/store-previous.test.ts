import { DuckDBInstance } from '@duckdb/node-api';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '../schemas/tables.js';
import { openSnapshotWriter, writeRunManifest } from '../src/sink/index.js';
import { BodyStore } from '../src/store/body-store.js';
import { KeyedPayloadsBuilder } from '../src/store/keyed-payloads.js';
import { fnv1a } from '../src/util/hash.js';
import { completedRuns, findPreviousSnapshot, PreviousSnapshot, previousKey } from '../src/store/previous-snapshot.js';
import { useTempDirs } from './helpers/tmp.js';

const enc = new TextEncoder();
const newDir = useTempDirs('prev');

type FileIn = Partial<Row<'files'>> & { subject: string; file_kind: string };
type FetchIn = Partial<Row<'fetches'>> & { url: string };

/** Writes one run with the project's own writer; `manifest: false` leaves it as a killed run would. */
async function writeRun(dir: string, date: string, runId: string, files: FileIn[], fetches: FetchIn[] = [], manifest = true) {
  const w = await openSnapshotWriter({ outDir: dir, snapshotDate: date, runId, tables: ['files', 'fetches'], worker: false });
  for (const f of files) await w.write('files', { status: 'ok', ...f } as Row<'files'>);
  for (const f of fetches) await w.write('fetches', { redirects: [], bytes: 0, truncated: false, attempts: 1, ...f } as Row<'fetches'>);
  const c = await w.commit();
  if (manifest) await writeRunManifest(dir, runId, { run_id: runId, snapshot_date: date, tables: c.tables, finished_at: new Date().toISOString() });
  return c;
}

async function storeBody(dir: string, text: string): Promise<string> {
  const w = BodyStore.forSnapshot(dir).writer();
  w.push(enc.encode(text));
  return (await w.finish()).sha256;
}

const key = (subject: string, fileKind = 'ads.txt') => ({ subject, fileKind });
const at = (iso: string) => new Date(iso);

describe('findPreviousSnapshot / completedRuns', () => {
  let dir: string;
  beforeAll(async () => {
    dir = newDir();
    await writeRun(dir, '2026-11-01', 'r1', [{ subject: 'a.com', file_kind: 'ads.txt' }]);
    await writeRun(dir, '2026-11-08', 'r2', [{ subject: 'a.com', file_kind: 'ads.txt' }]);
    // Killed run: parts committed, no manifest.
    await writeRun(dir, '2026-11-15', 'r3', [{ subject: 'a.com', file_kind: 'ads.txt' }], [], false);
    // A manifest whose part has gone, a malformed one, one outside the root, a temporary one.
    mkdirSync(path.join(dir, '_runs'), { recursive: true });
    writeFileSync(path.join(dir, '_runs', 'gone.json'), JSON.stringify({ snapshot_date: '2026-11-12', tables: { files: { rows: 1, parts: ['files/snapshot_date=2026-11-12/part-00001.parquet'] } } }));
    writeFileSync(path.join(dir, '_runs', 'bad.json'), '{"snapshot_date": "2026-11-13", ');
    writeFileSync(path.join(dir, '_runs', 'escape.json'), JSON.stringify({ snapshot_date: '2026-11-14', tables: { files: { rows: 1, parts: ['../elsewhere/part-00001.parquet'] } } }));
    writeFileSync(path.join(dir, '_runs', '.r9.json.tmp'), JSON.stringify({ snapshot_date: '2026-11-20', tables: {} }));
    writeFileSync(path.join(dir, '_runs', 'empty.json'), JSON.stringify({ snapshot_date: '2026-11-19', tables: { files: { rows: 0, parts: [] } } }));
  });

  it('picks the latest date before the given one that has a complete run', async () => {
    expect(await findPreviousSnapshot(dir, '2026-11-22')).toBe('2026-11-08');
    expect(await findPreviousSnapshot(dir, '2026-11-08')).toBe('2026-11-01');
    expect(await findPreviousSnapshot(dir, '2026-11-01')).toBeNull();
  });

  it('ignores runs without a manifest, with missing or foreign parts, malformed or without files parts', async () => {
    expect((await completedRuns(dir)).map((r) => [r.snapshotDate, r.runId])).toEqual([
      ['2026-11-01', 'r1'],
      ['2026-11-08', 'r2'],
    ]);
  });

  it('an empty or absent directory has no previous snapshot; a bad date is a usage error', async () => {
    expect(await findPreviousSnapshot(newDir(), '2026-11-22')).toBeNull();
    expect(await findPreviousSnapshot(path.join(newDir(), 'nope'), '2026-11-22')).toBeNull();
    await expect(findPreviousSnapshot(dir, '22/11/2026')).rejects.toThrow(TypeError);
  });
});

describe('PreviousSnapshot: files with validator columns', () => {
  let dir: string;
  let snap: PreviousSnapshot;
  let bodyA: string;
  beforeAll(async () => {
    dir = newDir();
    bodyA = await storeBody(dir, 'x.com, 1, DIRECT\n');
    const gone = 'f'.repeat(64);
    await writeRun(dir, '2026-11-01', 'old', [{ subject: 'only-old.com', file_kind: 'ads.txt', fetched_at: at('2026-11-01T00:00:00Z') }]);
    await writeRun(dir, '2026-11-08', 'run1', [
      { subject: 'a.com', file_kind: 'ads.txt', url: 'https://a.com/ads.txt', http_status: 200, sha256: bodyA, etag: '"v1"', last_modified: 'Sun, 01 Nov 2026 00:00:00 GMT', content_type: 'text/plain', fetched_at: at('2026-11-08T10:00:00Z'), fresh_until: at('2026-11-15T10:00:00Z') },
      { subject: 'a.com', file_kind: 'robots.txt', url: 'https://a.com/robots.txt', http_status: 200, sha256: gone, fetched_at: at('2026-11-08T09:00:00Z') },
      { subject: 'b.com', file_kind: 'ads.txt', status: 'not_found', http_status: 404, fetched_at: at('2026-11-08T10:00:00Z') },
      { subject: 'twice.com', file_kind: 'ads.txt', etag: '"early"', fetched_at: at('2026-11-08T01:00:00Z') },
    ]);
    // A second complete run of the same date: its later row for twice.com wins.
    await writeRun(dir, '2026-11-08', 'run2', [{ subject: 'twice.com', file_kind: 'ads.txt', etag: '"late"', fetched_at: at('2026-11-08T20:00:00Z') }]);
    // A killed run of the same date: never read.
    await writeRun(dir, '2026-11-08', 'killed', [{ subject: 'a.com', file_kind: 'ads.txt', etag: '"killed"', fetched_at: at('2026-11-09T00:00:00Z') }], [], false);
    snap = await PreviousSnapshot.open(dir, '2026-11-08');
  });
  afterAll(() => snap?.close());

  it('returns every column the incremental run needs, keyed `${fileKind} ${subject}`', async () => {
    const m = await snap.lookup([key('a.com'), key('a.com', 'robots.txt'), key('b.com'), key('nobody.com')]);
    expect([...m.keys()].sort()).toEqual(['ads.txt a.com', 'ads.txt b.com', 'robots.txt a.com']);
    expect(m.get(previousKey('ads.txt', 'a.com'))).toEqual({
      subject: 'a.com',
      fileKind: 'ads.txt',
      url: 'https://a.com/ads.txt',
      status: 'ok',
      httpStatus: 200,
      sha256: bodyA,
      etag: '"v1"',
      lastModified: 'Sun, 01 Nov 2026 00:00:00 GMT',
      contentType: 'text/plain',
      fetchedAt: at('2026-11-08T10:00:00Z'),
      freshUntil: at('2026-11-15T10:00:00Z'),
      bytes: null,
      truncated: false,
      hasBody: true,
    });
    expect(m.get('ads.txt b.com')).toMatchObject({ status: 'not_found', httpStatus: 404, sha256: null, hasBody: false });
  });

  it('hasBody says whether the body is in the store', async () => {
    const m = await snap.lookup([key('a.com', 'robots.txt'), key('a.com'), key('b.com')]);
    expect(m.get('robots.txt a.com')!.hasBody).toBe(false);
    expect(m.get('ads.txt a.com')!.hasBody).toBe(true);
    expect(m.get('ads.txt b.com')!.hasBody).toBe(false);
  });

  it('reads only complete runs of the chosen date; of two runs the latest fetch wins', async () => {
    expect(snap.rows).toBe(4);
    const m = await snap.lookup([key('twice.com'), key('only-old.com')]);
    expect(m.get('ads.txt twice.com')!.etag).toBe('"late"');
    expect(m.has('ads.txt only-old.com')).toBe(false);
    expect((await snap.lookup([key('a.com')])).get('ads.txt a.com')!.etag).toBe('"v1"');
  });

  it('concurrent lookups queue and each gets its own answer; duplicates and empty batches are fine', async () => {
    const [x, y, z, e] = await Promise.all([snap.lookup([key('a.com'), key('a.com')]), snap.lookup([key('b.com')]), snap.lookup([key('twice.com')]), snap.lookup([])]);
    expect([...x.keys()]).toEqual(['ads.txt a.com']);
    expect([...y.keys()]).toEqual(['ads.txt b.com']);
    expect([...z.keys()]).toEqual(['ads.txt twice.com']);
    expect(e.size).toBe(0);
  });

  it('a date without a complete run cannot be opened', async () => {
    await expect(PreviousSnapshot.open(dir, '2026-11-09')).rejects.toThrow(/no completed run/);
  });
});

describe('PreviousSnapshot: files written before the validator columns, and store pages', () => {
  let dir: string;
  let snap: PreviousSnapshot;
  beforeAll(async () => {
    dir = newDir();
    const date = '2026-10-01';
    // fetches with the current writer; files the way an older adsnap wrote them (no etag,
    // last_modified, fresh_until, fetched_at), via DuckDB.
    const c = await writeRun(dir, date, 'legacy', [], [
      { url: 'https://a.com/ads.txt', final_url: 'https://a.com/ads.txt', file_kind: 'ads.txt', subject: 'a.com', status_code: 200, etag: '"old"', started_at: at('2026-09-20T00:00:00Z') },
      { url: 'http://a.com/ads.txt', final_url: 'https://a.com/ads.txt', file_kind: 'ads.txt', subject: 'a.com', status_code: 200, etag: '"new"', last_modified: 'Wed, 30 Sep 2026 00:00:00 GMT', started_at: at('2026-10-01T08:00:00Z') },
      { url: 'https://a.com/ads.txt', final_url: 'https://a.com/ads.txt', file_kind: 'ads.txt', subject: 'a.com', status_code: 500, etag: '"error page"', started_at: at('2026-10-01T09:00:00Z') },
      { url: 'https://play.google.com/store/apps/details?id=x.y', final_url: 'https://play.google.com/store/apps/details?id=x.y', file_kind: 'store_page', subject: 'play.google.com:x.y', status_code: 200, sha256: 'a'.repeat(64), etag: '"p"', started_at: at('2026-10-01T07:00:00Z') },
    ]);
    const filesDir = path.join(dir, 'files', `snapshot_date=${date}`);
    mkdirSync(filesDir, { recursive: true });
    const legacyPart = path.join(filesDir, 'part-00099.parquet');
    const inst = await DuckDBInstance.create(':memory:');
    const con = await inst.connect();
    await con.run(`COPY (SELECT 'a.com' AS subject, 'ads.txt' AS file_kind, 'root' AS via, 'https://a.com/ads.txt' AS url, 'ok' AS status, 200 AS http_status, true AS valid, '${'b'.repeat(64)}' AS sha256) TO '${legacyPart}' (FORMAT parquet)`);
    con.closeSync();
    inst.closeSync();
    await writeRunManifest(dir, 'legacy', { run_id: 'legacy', snapshot_date: date, tables: { ...c.tables, files: { rows: 1, parts: [`files/snapshot_date=${date}/part-00099.parquet`] } } });
    snap = await PreviousSnapshot.open(dir, date);
  });
  afterAll(() => snap?.close());

  it('takes etag / last_modified / fetched_at from the latest successful fetch of the file URL; fresh_until stays null', async () => {
    const f = (await snap.lookup([key('a.com')])).get('ads.txt a.com')!;
    expect(f).toMatchObject({ url: 'https://a.com/ads.txt', sha256: 'b'.repeat(64), etag: '"new"', lastModified: 'Wed, 30 Sep 2026 00:00:00 GMT', fetchedAt: at('2026-10-01T08:00:00Z'), freshUntil: null, contentType: null });
  });

  it('answers store_page keys from the fetches table (subject = app key)', async () => {
    const f = (await snap.lookup([key('play.google.com:x.y', 'store_page')])).get('store_page play.google.com:x.y')!;
    expect(f).toMatchObject({ status: 'ok', httpStatus: 200, etag: '"p"', sha256: 'a'.repeat(64), fetchedAt: at('2026-10-01T07:00:00Z'), hasBody: false });
  });
});

describe('KeyedPayloads: the compact index behind lookups', () => {
  it('finds every key, misses absent ones, and resolves 32-bit hash collisions by the stored key', () => {
    // Two keys with the same FNV-1a hash (found by search), plus unicode and many others.
    const [c1, c2] = ['ads.txt s449599.com', 'ads.txt s612382.com'];
    expect(fnv1a(c1)).toBe(fnv1a(c2));
    const b = new KeyedPayloadsBuilder();
    const keys = [c1, c2, 'ads.txt bücher.de', ...Array.from({ length: 5000 }, (_, i) => `robots.txt h${i}.example`)];
    keys.forEach((k, i) => b.add(k, JSON.stringify([i, k, 'é'])));
    const m = b.build();
    expect(m.size).toBe(keys.length);
    keys.forEach((k, i) => expect(m.get(k)).toBe(JSON.stringify([i, k, 'é'])));
    expect(m.get('ads.txt s0.com')).toBeNull();
    expect(m.get('')).toBeNull();
    expect(m.bytes).toBeGreaterThan(5000 * 20);
  });

  it('spans several slabs when the records exceed one', () => {
    const b = new KeyedPayloadsBuilder();
    const big = 'x'.repeat(3 * 1024 * 1024);
    for (let i = 0; i < 8; i++) b.add(`k${i}`, big + i);
    const m = b.build();
    for (let i = 0; i < 8; i++) expect(m.get(`k${i}`)).toBe(big + i);
  });
});
