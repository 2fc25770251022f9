import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/corpus.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * What importing an entry point loads, in a fresh Node process whose module resolutions are
 * recorded (helpers/load-recorder.mjs), with the native libraries it mapped
 * (process.report's shared objects). The package is imported by its own name, through the
 * `exports` map of package.json, from the build (`npm test`'s pretest builds it).
 */
const tempDir = useTempDirs('loads');

interface Loaded {
  urls: string[];
  sharedObjects: string[];
  exports: string[];
}

function loadsOf(entry: string): Loaded {
  expect(existsSync(path.join(repoRoot, 'dist', 'src', 'index.js')), 'dist/ is built by npm test (pretest)').toBe(true);
  const log = path.join(tempDir(), 'loads.txt');
  const script = `
    const m = await import(${JSON.stringify(entry)});
    const sharedObjects = process.report.getReport().sharedObjects;
    process.stdout.write(JSON.stringify({ exports: Object.keys(m).sort(), sharedObjects }));`;
  const recorder = pathToFileURL(path.join(repoRoot, 'test', 'helpers', 'load-recorder.mjs')).href;
  const r = spawnSync(process.execPath, ['--import', recorder, '--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, ADSNAP_LOAD_LOG: log },
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as Omit<Loaded, 'urls'>;
  return { ...out, urls: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/** What no user of the crawler or the parsers should pay for at import. */
const TEST_WEB = [/\/dist\/src\/simweb\//, /\/node_modules\/@peculiar\/x509\//, /\/node_modules\/dns-packet\//];
const SQL_LAYER = [/\/node_modules\/@duckdb\//, /\/dist\/src\/(sql|report)\//];

function matching(urls: readonly string[], patterns: readonly RegExp[]): string[] {
  return urls.filter((u) => patterns.some((p) => p.test(u)));
}

describe('the library export (package.json exports)', () => {
  it('"adsnap" gives the crawler, the parsers and the table schemas, and loads no simulated web, no DuckDB', () => {
    const { urls, sharedObjects, exports } = loadsOf('adsnap');
    expect(urls).toContain(pathToFileURL(path.join(repoRoot, 'dist', 'src', 'index.js')).href);
    for (const name of ['crawl', 'reparse', 'parseAdsTxt', 'parseRobotsTxt', 'parseSellersJson', 'parseStorePage', 'tables', 'tableNames', 'productToken']) expect(exports).toContain(name);
    expect(exports).not.toContain('startSimweb');
    expect(matching(urls, TEST_WEB)).toEqual([]);
    expect(matching(urls, SQL_LAYER)).toEqual([]);
    expect(sharedObjects.filter((s) => /duckdb/i.test(s))).toEqual([]);
  }, 150_000);

  it('"adsnap/simweb" is the simulated web, with its CA and DNS codec (the recorder sees what it should)', () => {
    const { urls, exports } = loadsOf('adsnap/simweb');
    expect(exports).toEqual(expect.arrayContaining(['startSimweb', 'createTestCa', 'HOSTILE_KINDS']));
    expect(urls.some((u) => /\/dist\/src\/simweb\/index\.js$/.test(u))).toBe(true);
    expect(urls.some((u) => /\/node_modules\/@peculiar\/x509\//.test(u))).toBe(true);
    expect(urls.some((u) => /\/node_modules\/dns-packet\//.test(u))).toBe(true);
  }, 150_000);
});

describe('a lean crawl process', () => {
  it('the crawl command loads no DuckDB until its commit (the compaction and the derived tables load it then, after the command has set its allocator option: src/util/duckdb-size.ts)', () => {
    const { urls, sharedObjects } = loadsOf(pathToFileURL(path.join(repoRoot, 'dist', 'src', 'cli', 'commands', 'crawl.js')).href);
    expect(urls.some((u) => u.endsWith('/dist/pipelines/crawl.js'))).toBe(true);
    expect(matching(urls, [...SQL_LAYER, ...TEST_WEB])).toEqual([]);
    expect(sharedObjects.filter((s) => /duckdb/i.test(s))).toEqual([]);
  }, 150_000);

  it('the verify command loads no DuckDB at import either: it sets its allocator option first, then loads it (src/cli/commands/verify.ts)', () => {
    const { urls, sharedObjects } = loadsOf(pathToFileURL(path.join(repoRoot, 'dist', 'src', 'cli', 'commands', 'verify.js')).href);
    expect(matching(urls, SQL_LAYER)).toEqual([]);
    expect(sharedObjects.filter((s) => /duckdb/i.test(s))).toEqual([]);
  }, 150_000);

  it('the SQL layer does map DuckDB (the check above can fail)', () => {
    const { urls, sharedObjects } = loadsOf(pathToFileURL(path.join(repoRoot, 'dist', 'src', 'sql', 'snapshot-db.js')).href);
    expect(urls.some((u) => /\/node_modules\/@duckdb\/node-api\//.test(u))).toBe(true);
    expect(sharedObjects.some((s) => /duckdb/i.test(s))).toBe(true);
  }, 150_000);
});
