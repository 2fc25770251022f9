/**
 * `adsnap verify`'s record lookup (src/verify/judge-sql.ts) when one file lists a seller id in
 * several cases: the id equal byte for byte decides (its own relationship, `exact`), else the
 * case-folded one (DIRECT wins, `case_folded`), as the vocabulary matches seller ids. The night is
 * crawled from test/fixtures/verify-case-web.
 */
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { repoRoot } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('verify-lookups');
const fixtures = path.join(repoRoot, 'test', 'fixtures');
const PUBS = ['abc', 'AbC', 'ABC', 'aBc', 'Xy', 'xY', 'q'];

let web: Simweb;
const rows = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  web = await startSimweb({ hosts: 0, apps: 0, hostile: false, latency: { minMs: 0, maxMs: 1 }, fixturesDir: path.join(fixtures, 'verify-case-web') });
  const tmp = tempDir();
  const root = path.join(tmp, 'night');
  const crawl = await runCli(['crawl', '--domains', path.join(fixtures, 'verify-case-domains.txt'), '--out', root, '--progress', 'none', '--snapshot-date', '2026-11-20', ...web.connectArgs]);
  expect(crawl.code, crawl.stderr).toBe(0);
  const requests = path.join(tmp, 'requests.jsonl');
  writeFileSync(requests, PUBS.map((pub) => JSON.stringify({ id: pub, site: { domain: 'casevariants.com', publisher: { id: pub } }, ad_system: 'exchange.com' })).join('\n') + '\n');
  const r = await runCli(['verify', root, '--requests', requests]);
  expect(r.code, r.stderr).toBe(0);
  for (const line of r.stdout.trim().split('\n')) {
    const row = JSON.parse(line) as Record<string, unknown>;
    rows.set(String(row.id), row);
  }
}, 120_000);

afterAll(async () => {
  await web?.close();
});

const seen = (pub: string) => {
  const r = rows.get(pub)!;
  return [r.authorization, r.relationship, r.seller_match];
};

describe('adsnap verify: a seller id listed in several cases', () => {
  it('an id equal byte for byte is matched exactly, with its own relationship', () => {
    expect(seen('abc')).toEqual(['authorized', 'RESELLER', 'exact']);
    expect(seen('AbC')).toEqual(['authorized', 'DIRECT', 'exact']);
    expect(seen('ABC')).toEqual(['authorized', 'RESELLER', 'exact']);
    expect(seen('Xy')).toEqual(['authorized', 'RESELLER', 'exact']);
  });
  it('else case-folded, DIRECT winning among the ids it folds to', () => {
    expect(seen('aBc')).toEqual(['authorized', 'DIRECT', 'case_folded']);
    expect(seen('xY')).toEqual(['authorized', 'RESELLER', 'case_folded']);
  });
  it('an id listed in no case is not authorized', () => expect(seen('q')).toEqual(['unauthorized', null, null]));
});
