import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { guessKind } from '../src/cli/commands/parse.js';
import { repoRoot } from './helpers/corpus.js';
import { adsnapBin, finished, runCli } from './helpers/run-cli.js';

const samples = path.join(repoRoot, 'data-samples', 'adstxt');
const sample = (name: string) => path.join(samples, name);
const tmp = mkdtempSync(path.join(tmpdir(), 'adsnap-parse-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('guessKind (contract §1: "guessed from the file name")', () => {
  it.each([
    ['example.com-app-ads.txt', 'app-ads.txt'],
    ['/x/APP-ADS.TXT', 'app-ads.txt'],
    ['robots.txt', 'robots.txt'],
    ['google.com.robots', 'robots.txt'],
    ['sellers.json', 'sellers.json'],
    ['appnexus.json', 'sellers.json'],
    ['adx.buyers.json', 'buyers.json'],
    ['ads.txt', 'ads.txt'],
    ['whatever', 'ads.txt'],
  ])('%s → %s', (name, kind) => expect(guessKind(name)).toBe(kind));
});

describe('adsnap parse (contract §1)', () => {
  it('prints NDJSON when stdout is not a terminal: the golden output, in file order, summary last', async () => {
    for (const name of ['spec-examples', 'vmvpd-app-ads', 'bom-mixed-line-ends', 'soft-404']) {
      const r = await runCli(['parse', sample(`${name}.txt`)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(readFileSync(sample(`${name}.ndjson`), 'utf8'));
    }
  });

  it('exits 0 for a file with parse issues, and every NDJSON line has a type', async () => {
    const r = await runCli(['parse', '--format', 'ndjson', sample('errors.txt')]);
    expect(r.code).toBe(0);
    const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; code?: string });
    expect(events.every((e) => typeof e.type === 'string')).toBe(true);
    expect(events.filter((e) => e.type === 'issue').map((e) => e.code)).toContain('INVALID_DOMAIN');
    expect(events.at(-1)).toMatchObject({ type: 'summary', status: 'ok', errors: 8 });
  });

  it('reads stdin with `-` (kind ads.txt unless --kind says otherwise)', async () => {
    const input = readFileSync(sample('vmvpd-app-ads.txt'), 'utf8');
    const asAds = await runCli(['parse', '-'], { input });
    expect(asAds.code).toBe(0);
    expect(asAds.stdout).not.toContain('SUBDOMAIN_IN_APP_ADS');
    expect(JSON.parse(asAds.stdout.trimEnd().split('\n').at(-1)!).subdomains).toEqual([{ line_no: 5, domain: 'apps.vmvpdb.com' }]);
    const asApp = await runCli(['parse', '--kind', 'app-ads.txt', '-'], { input });
    expect(asApp.stdout).toBe(readFileSync(sample('vmvpd-app-ads.ndjson'), 'utf8'));
  });

  it('--format table prints one readable row per event', async () => {
    const r = await runCli(['parse', '--format', 'table', sample('spec-examples.txt')]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\s+line\s+type\s+details$/);
    expect(lines).toContain('     6  record    greenadexchange.com, 12345, DIRECT, d75815a79');
    expect(lines).toContain('     3  variable  MANAGERDOMAIN = yellowmediamanager.com, FR  → yellowmediamanager.com [FR]');
    expect(lines.at(-1)).toMatch(/^\s+-\s+summary\s+status=ok records=5 variables=6 errors=0 warnings=0/);
    const errors = await runCli(['parse', '--format', 'table', sample('errors.txt')]);
    expect(errors.stdout).toContain('     2  error     TOO_FEW_FIELDS: a record needs 3 fields');
  });

  it('exits 1 when the file cannot be read', async () => {
    const missing = await runCli(['parse', path.join(tmp, 'nope-ads.txt')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*nope-ads\.txt: ENOENT/);
    expect(missing.stdout).toBe('');
    const directory = await runCli(['parse', tmp]);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toMatch(/EISDIR/);
  });

  it.each([
    [['parse'], /missing FILE/],
    [['parse', 'a.txt', 'b.txt'], /exactly one FILE/],
    [['parse', '--kind', 'foo.txt', 'a.txt'], /--kind must be one of/],
    [['parse', '--format', 'csv', 'a.txt'], /--format must be ndjson or table/],
    [['parse', '--nope', 'a.txt'], /Unknown option/],
  ])('exits 2 on usage errors: %j', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('--kind buyers.json: one buyer event per entry (the buyers table\'s columns), the issues, then the summary', async () => {
    const file = path.join(tmp, 'adx-buyers.json');
    writeFileSync(file, '{"version":"1.0","contact_email":"b@adx.test","buyers":[\n{"buyer_id":"s-1","buyer_type":"BRAND","name":"One","domain":"One.Test"},\n{"name":"no id"}\n]}');
    const r = await runCli(['parse', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { type: 'buyer', buyer_id: 's-1', buyer_type: 'BRAND', name: 'One', domain: 'one.test', is_confidential: null, comment: null, line_no: 2 },
      { type: 'buyer', buyer_id: null, buyer_type: null, name: 'no id', domain: null, is_confidential: null, comment: null, line_no: 3 },
      { type: 'issue', line_no: 3, severity: 'error', code: 'MISSING_BUYER_ID', message: 'a buyer has no buyer_id', line_text: '{"name":"no id"}' },
      { type: 'summary', status: 'ok', buyers: 2, errors: 1, warnings: 0, version: '1.0', contact_email: 'b@adx.test', contact_address: null, identifiers: [] },
    ]);
  });

  it('--help prints the usage and exits 0', async () => {
    const r = await runCli(['parse', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: adsnap parse \[--kind K\] \[--format ndjson\|table\] FILE\|-/);
  });

  for (const [kind, mod] of [
    ['robots.txt', 'robots'],
    ['sellers.json', 'sellers'],
  ] as const) {
    const built = existsSync(path.join(repoRoot, 'dist', 'src', 'cli', 'parse-kinds', `${mod}.js`));
    it.skipIf(built)(`exits 1 with a clear message when the ${kind} parser is not in this build`, async () => {
      const r = await runCli(['parse', '--kind', kind, sample('errors.txt')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`parsing ${kind} is not available in this build`);
    });
  }

  it('stops quietly (exit 0) when the reader goes away, e.g. `| head -1`', async () => {
    const big = path.join(tmp, 'big-ads.txt');
    writeFileSync(big, 'google.com, pub-1, DIRECT, f08c47fec0942fa0\n'.repeat(200_000));
    const child = spawn(process.execPath, [adsnapBin, 'parse', big], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.once('data', () => child.stdout.destroy());
    const r = await finished(child);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
