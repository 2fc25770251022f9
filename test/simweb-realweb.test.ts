import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { syntheticName } from '../src/simweb/names.js';
import { seedOf } from '../src/simweb/prng.js';
import { realWebFate, type RealWebFate } from '../src/simweb/realweb.js';
import { VARIETY_WEIGHTS, WALL_VENDOR_WEIGHTS } from '../src/simweb/realweb-calibration.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The real web's HTTP mix (`simweb --realweb`) crawled through --connect-to: bot walls
 * are `blocked`, 429s `rate_limited` with the host held, and every variety of a served ads.txt
 * (HTTP/1.0 close-delimited, br, deflate, Latin-1, UTF-16 with BOM, relative and
 * protocol-relative Location) is read whole, with the records the synthetic web planned.
 */

const tmpDir = useTempDirs('realweb');
const HOSTS = 4000;
const seed = seedOf('adsnap');
let web: Simweb;
let db: Awaited<ReturnType<typeof openSnapshotDb>>;
let manifest: { counts: { walls: number; rate_limited: number; backoffs: { hosts: number; ips: number; causes: Record<string, number> } } };
const picked: Record<string, string> = {};

/** The first listed root whose fate matches (for varieties: one whose ads.txt is served whole). */
function pick(key: string, match: (f: RealWebFate) => boolean): void {
  for (let i = 1; i <= HOSTS; i++) {
    const h = syntheticName(seed, 'root', i);
    if (!match(realWebFate(seed, h))) continue;
    const expect = web.describe(h).expect['ads.txt'];
    if (key.startsWith('variety:') && !(expect?.status === 'ok' && (expect.records ?? 0) > 0)) continue;
    picked[key] = h;
    return;
  }
  throw new Error(`no host for ${key} in ${HOSTS}`);
}

beforeAll(async () => {
  web = await startSimweb({ hosts: HOSTS, hostile: false, realweb: true, seed: 'adsnap' });
  for (const v of Object.keys(WALL_VENDOR_WEIGHTS)) pick(`wall:${v}`, (f) => f.kind === 'wall' && f.vendor === v);
  for (const v of Object.keys(VARIETY_WEIGHTS)) pick(`variety:${v}`, (f) => f.kind === 'variety' && f.variety === v);
  pick('rate_limited', (f) => f.kind === 'rate_limited');
  const dir = tmpDir();
  const list = path.join(dir, 'list.txt');
  writeFileSync(list, Object.values(picked).join('\n') + '\n');
  const out = path.join(dir, 'snap');
  await crawl({
    domains: list,
    outDir: out,
    snapshotDate: '2026-11-25',
    checkpointSeconds: 0,
    previous: null,
    sellers: false,
    fetch: { connectTo: web.connectArgs.filter((_, i) => web.connectArgs[i - 1] === '--connect-to'), caCerts: [web.caCertPem], retries: 1, maxRetryAfterMs: 5000 },
  });
  const runs = readdirSync(path.join(out, '_runs')).filter((f) => f.endsWith('.json'));
  manifest = JSON.parse(readFileSync(path.join(out, '_runs', runs[0]!), 'utf8'));
  db = await openSnapshotDb(out);
}, 120_000);

afterAll(async () => {
  db?.close();
  await web?.close();
});

async function adsFile(host: string) {
  const [row] = await db.rows(`SELECT status, valid, records, errors, url FROM files WHERE subject = ? AND file_kind = 'ads.txt'`, [host]);
  return row as { status: string; valid: boolean; records: number; errors: number; url: string | null };
}

describe('simweb --realweb through a crawl', () => {
  it('every vendor\'s wall is `blocked`, whatever status it answered with', async () => {
    for (const v of Object.keys(WALL_VENDOR_WEIGHTS)) {
      const f = await adsFile(picked[`wall:${v}`]!);
      expect([v, f.status, f.url]).toEqual([v, 'blocked', null]);
    }
    const [fetches] = await db.rows(`SELECT count(*)::INT AS n FROM fetches WHERE error = 'challenge'`);
    expect(fetches!.n).toBeGreaterThanOrEqual(5);
  });

  it('a site answering 429 is `rate_limited`, its host held per Retry-After; walls and 429s are counted in the manifest', async () => {
    expect((await adsFile(picked.rate_limited!)).status).toBe('rate_limited');
    const [att] = await db.rows(`SELECT max(attempts)::INT AS a FROM fetches WHERE host LIKE ? AND status_code = 429`, [`%${picked.rate_limited!}`]);
    expect(att!.a).toBe(2); // retried once after waiting out Retry-After
    expect(manifest.counts.walls).toBeGreaterThanOrEqual(5);
    expect(manifest.counts.rate_limited).toBeGreaterThanOrEqual(2);
    expect(manifest.counts.backoffs.causes['429']).toBeGreaterThanOrEqual(2);
    expect(Object.keys(manifest.counts.backoffs.causes).filter((c) => c.startsWith('challenge:')).sort()).toEqual(Object.keys(WALL_VENDOR_WEIGHTS).map((v) => `challenge:${v}`).sort());
  });

  it('reads every variety of a served ads.txt whole, with the planned records', async () => {
    for (const v of Object.keys(VARIETY_WEIGHTS)) {
      const host = picked[`variety:${v}`]!;
      const want = web.describe(host).expect['ads.txt']!;
      const f = await adsFile(host);
      // The planned records, every one (the synthetic web's own malformed lines are issues either way).
      expect({ v, status: f.status, records: f.records }).toEqual({ v, status: 'ok', records: want.records });
      if (v.endsWith('location')) expect(f.url).toMatch(/\/ads-current\.txt$/);
    }
  });
});
