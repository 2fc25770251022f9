import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveKnobs } from '../src/cli/crawl-knobs.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

/** Every knob an operator needs (issue 17): flags and --config FILE, checked at the edge, echoed in the manifest. */

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
    expect(k.fetch.maxBytes).toEqual({ 'ads.txt': 1048576, 'app-ads.txt': 1048576, 'robots.txt': 1048576, 'sellers.json': 1048576, store_page: 1048576 });
    // A flag without KIND sets every kind.
    expect((await resolveKnobs({ timeout: ['9000'] })).fetch.totalTimeoutMs).toMatchObject({ 'robots.txt': 9000, store_page: 9000 });
    expect(await resolveKnobs({})).toEqual({ concurrency: 64, fetch: {}, configFile: null });
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
      connect_timeout_ms: 10000,
      dns_cache_size: 10000,
      max_bytes: { 'robots.txt': 600000, 'ads.txt': 16 * 2 ** 20 },
      total_timeout_ms: { 'ads.txt': 30000, 'sellers.json': 300000 },
    });
    expect(manifest.counts).toMatchObject({ walls: 0, rate_limited: 0, backoffs: { hosts: expect.any(Number), ips: expect.any(Number) } });
  });
});
