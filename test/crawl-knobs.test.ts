import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveKnobs } from '../src/cli/crawl-knobs.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

/** Every knob an operator needs (docs/guide/operating.md): flags and --config FILE, checked at the edge, echoed in the manifest. */

const tmpDir = useTempDirs('knobs');
let web: Simweb;

beforeAll(async () => {
  web = await startSimweb({ hosts: 30, hostile: false });
});
afterAll(async () => {
  await web?.close();
});

function config(obj: unknown): string {
  const f = path.join(tmpDir(), 'adsnap.json');
  writeFileSync(f, typeof obj === 'string' ? obj : JSON.stringify(obj));
  return f;
}

describe('resolveKnobs (src/cli/crawl-knobs.ts)', () => {
  it('reads the file, lets flags win, merges per-kind maps entry by entry', async () => {
    const file = config({ 'per-ip': 4, retries: 0, concurrency: 200, timeout: { 'ads.txt': 20000, 'sellers.json': 600000 }, 'max-bytes': 1048576, 'dns-cache-size': 5000, 'user-agent': 'adsnap-test/1 (+https://example.invalid)' });
    const k = await resolveKnobs({ config: file, 'per-ip': '8', timeout: ['ads.txt=15000'], 'connect-timeout': '3000' });
    expect(k.configFile).toBe(file);
    expect(k.concurrency).toBe(200);
    expect(k.fetch).toMatchObject({ perIp: 8, retries: 0, connectTimeoutMs: 3000, dnsCacheSize: 5000, userAgent: 'adsnap-test/1 (+https://example.invalid)' });
    expect(k.fetch.totalTimeoutMs).toEqual({ 'ads.txt': 15000, 'sellers.json': 600000 });
    expect(k.fetch.maxBytes).toEqual({ 'ads.txt': 1048576, 'app-ads.txt': 1048576, 'robots.txt': 1048576, 'sellers.json': 1048576, 'buyers.json': 1048576, store_page: 1048576, 'tdmrep.json': 1048576, 'llms.txt': 1048576, rsl: 1048576, home_page: 1048576 });
    // A flag without KIND sets every kind.
    expect((await resolveKnobs({ timeout: ['9000'] })).fetch.totalTimeoutMs).toMatchObject({ 'robots.txt': 9000, store_page: 9000 });
    expect(await resolveKnobs({})).toEqual({ concurrency: 256, fetch: {}, sellers: { locations: {}, depth: 5, maxIntermediaries: 20000 }, lists: { providerUrls: {}, cacheDir: null }, lock: { heartbeatMs: 5000, staleMs: 30000 }, configFile: null });
  });

  it('named lists: list-provider-url merges per provider (flags win), list-cache is read beside the config file; bad values name the knob', async () => {
    const dir = tmpDir();
    const f = path.join(dir, 'adsnap.json');
    writeFileSync(f, JSON.stringify({ 'list-provider-url': { tranco: 'https://mirror.test/tranco', crux: 'https://mirror.test/crux' }, 'list-cache': 'lists' }));
    const k = await resolveKnobs({ config: f, 'list-provider-url': ['tranco=http://127.0.0.1:9/tranco'] });
    expect(k.lists).toEqual({ providerUrls: { tranco: 'http://127.0.0.1:9/tranco', crux: 'https://mirror.test/crux' }, cacheDir: path.join(dir, 'lists') });
    expect((await resolveKnobs({ config: f, 'list-cache': '/elsewhere' })).lists.cacheDir).toBe('/elsewhere');
    await expect(resolveKnobs({ 'list-provider-url': ['alexa=https://x.test'] })).rejects.toThrow(/--list-provider-url: unknown list provider "alexa" \(known: tranco, crux, majestic, radar\)/);
    await expect(resolveKnobs({ 'list-provider-url': ['tranco=ftp://x.test'] })).rejects.toThrow(/not an http\(s\) URL/);
    await expect(resolveKnobs({ 'list-provider-url': ['tranco'] })).rejects.toThrow(/must be PROVIDER=URL/);
    await expect(resolveKnobs({ config: config({ 'list-provider-url': 'https://x.test' }) })).rejects.toThrow(/list-provider-url must be an object of provider → base URL/);
  });
  it("reads the run lock's heartbeat and stale bound from the file and flags, and refuses a bound under three heartbeats", async () => {
    const file = config({ 'lock-heartbeat': 10000, 'lock-stale': '60000' });
    expect((await resolveKnobs({ config: file })).lock).toEqual({ heartbeatMs: 10000, staleMs: 60000 });
    expect((await resolveKnobs({ config: file, 'lock-stale': '45000' })).lock).toEqual({ heartbeatMs: 10000, staleMs: 45000 });
    await expect(resolveKnobs({ config: file, 'lock-stale': '20000' })).rejects.toThrow(/stale bound \(20000 ms\) must be at least 3 heartbeats \(30000 ms\)/);
    await expect(resolveKnobs({ config: config({ 'lock-stale': 500 }) })).rejects.toThrow(/lock-stale must be an integer from 1000 to 3600000, got 500/);
  });

  it('reads the sellers.json knobs from the file; locations merge by ad system, flags on top', async () => {
    const dir = tmpDir();
    writeFileSync(path.join(dir, 'table.tsv'), 'a.test\thttps://table.test/a.json\nb.test\thttps://table.test/b.json\nc.test\thttps://table.test/c.json\n');
    const f = path.join(dir, 'adsnap.json');
    // The array form; a relative table path is read beside the config file.
    writeFileSync(f, JSON.stringify({ 'sellers-locations': 'table.tsv', 'sellers-location': ['B.Test=https://file.test/b.json#x', 'd.test=https://file.test/d.json'], 'sellers-depth': 2, 'max-intermediaries': 7 }));
    const k = await resolveKnobs({ config: f });
    expect(k.sellers).toEqual({
      locations: { 'a.test': 'https://table.test/a.json', 'b.test': 'https://file.test/b.json', 'c.test': 'https://table.test/c.json', 'd.test': 'https://file.test/d.json' },
      depth: 2,
      maxIntermediaries: 7,
    });
    // The object form; a flag beats the file's entry for its ad system and keeps the others.
    const g = config({ 'sellers-location': { 'c.test': 'https://file.test/c.json', 'e.test': 'http://file.test/e.json' }, 'sellers-depth': 0 });
    const k2 = await resolveKnobs({ config: g, 'sellers-location': ['e.test=https://flag.test/e.json'], 'sellers-depth': '3' });
    expect(k2.sellers).toEqual({ locations: { 'c.test': 'https://file.test/c.json', 'e.test': 'https://flag.test/e.json' }, depth: 3, maxIntermediaries: 20000 });
  });

  it('refuses a bad sellers.json knob in the file with the flags\' checks, naming the file and key', async () => {
    const bad = async (obj: unknown) => resolveKnobs({ config: config(obj) });
    await expect(bad({ 'sellers-depth': 33 })).rejects.toThrow(/: sellers-depth must be an integer from 0 to 32, got 33/);
    await expect(bad({ 'max-intermediaries': -1 })).rejects.toThrow(/: max-intermediaries must be an integer from 0 to 10000000/);
    await expect(bad({ 'sellers-location': { 'x.test': 'ftp://x.test/s.json' } })).rejects.toThrow(/sellers-location: "ftp:\/\/x.test\/s.json" is not an http\(s\) URL/);
    await expect(bad({ 'sellers-location': { 'not a domain': 'https://x.test/s.json' } })).rejects.toThrow(/not an ad system domain/);
    await expect(bad({ 'sellers-location': { 'x.test': 5 } })).rejects.toThrow(/must be a string/);
    await expect(bad({ 'sellers-location': ['x.test'] })).rejects.toThrow(/sellers-location must be AD_SYSTEM=URL, got "x.test"/);
    await expect(bad({ 'sellers-location': 'x.test=https://x.test/s.json' })).rejects.toThrow(/must be an object .* or a list/);
    await expect(bad({ 'sellers-locations': 'missing.tsv' })).rejects.toThrow(/sellers-locations .*missing\.tsv: ENOENT/);
    await expect(resolveKnobs({ 'sellers-depth': '33' })).rejects.toThrow(/^--sellers-depth must be an integer from 0 to 32, got "33"$/);
  });

  it('refuses what is wrong with a message naming the knob and where it came from', async () => {
    await expect(resolveKnobs({ 'per-ip': '0' })).rejects.toThrow(/--per-ip must be an integer from 1 to 4096, got "0"/);
    await expect(resolveKnobs({ timeout: ['ads.text=100'] })).rejects.toThrow(/unknown file kind "ads.text"/);
    await expect(resolveKnobs({ retries: 'two' })).rejects.toThrow(/--retries must be an integer/);
    const f1 = config({ 'per-ip': 2, 'per_host': 1 });
    await expect(resolveKnobs({ config: f1 })).rejects.toThrow(/unknown knob "per_host"/);
    const f2 = config({ 'connect-timeout': -5 });
    await expect(resolveKnobs({ config: f2 })).rejects.toThrow(new RegExp(`--config ${f2.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: connect-timeout must be an integer from 1`));
    await expect(resolveKnobs({ config: config('{"retries": 1,') })).rejects.toThrow(/not JSON/);
    await expect(resolveKnobs({ config: config('[1]') })).rejects.toThrow(/must hold a JSON object/);
    await expect(resolveKnobs({ config: path.join(tmpDir(), 'missing.json') })).rejects.toThrow(/ENOENT/);
  });
});

describe('adsnap crawl --config FILE', () => {
  it('exits 2 on a bad config before touching the output directory', async () => {
    const out = path.join(tmpDir(), 'snap');
    const list = path.join(tmpDir(), 'list.txt');
    writeFileSync(list, 'example.com\n');
    const r = await runCli(['crawl', '--domains', list, '--out', out, '--config', config({ 'max-bytes': { 'ads.txt': 0 } }), ...web.connectArgs]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/max-bytes ads\.txt must be an integer from 1/);
    expect(() => readdirSync(out)).toThrow();
  });

  it('echoes every knob as used in the run manifest (defaults, file, flags)', async () => {
    const dir = tmpDir();
    const list = path.join(dir, 'list.txt');
    writeFileSync(list, [...web.domains()].slice(0, 5).join('\n') + '\n');
    const out = path.join(dir, 'snap');
    const file = config({ 'per-ip': 3, 'max-bytes': { 'robots.txt': 600000 }, 'wall-hold': 2000, retries: 1 });
    const r = await runCli(['crawl', '--domains', list, '--out', out, '--no-sellers', '--progress', 'none', '--snapshot-date', '2026-11-25', '--config', file, '--retries', '0', '--concurrency', '8', ...web.connectArgs]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const runs = readdirSync(path.join(out, '_runs')).filter((f) => f.endsWith('.json'));
    const manifest = JSON.parse(readFileSync(path.join(out, '_runs', runs[0]!), 'utf8'));
    expect(manifest.fetch).toMatchObject({
      config_file: file,
      concurrency: 8,
      per_host: 1,
      per_ip: 3,
      retries: 0,
      wall_hold_ms: 2000,
      ip_backoff_ms: 1000,
      connect_timeout_ms: 5000,
      headers_timeout_ms: 10000,
      unresponsive_after: 2,
      dns_cache_size: 10000,
      max_bytes: { 'robots.txt': 600000, 'ads.txt': 16 * 2 ** 20 },
      total_timeout_ms: { 'ads.txt': 30000, 'sellers.json': 300000 },
    });
    expect(manifest.counts).toMatchObject({ walls: 0, rate_limited: 0, backoffs: { hosts: expect.any(Number), ips: expect.any(Number) } });
  });
});
