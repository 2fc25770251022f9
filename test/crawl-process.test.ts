import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { processState } from '../src/store/process-identity.js';
import { repoRoot } from './helpers/corpus.js';
import { finished, runCli, spawnCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

/** `adsnap crawl` crawls in a child process and commits in its own (src/cli/crawl-process.ts). */
const tempDir = useTempDirs('crawl-process');

let web: Simweb;
let list: string;

beforeAll(async () => {
  web = await startSimweb({ hosts: 60, latency: { minMs: 50, maxMs: 150 }, hostile: false, fixturesDir: path.join(repoRoot, 'data-samples', 'simweb-fixtures') });
  list = path.join(tempDir(), 'list.txt');
  writeFileSync(list, [...web.domains()].join('\n') + '\n');
});

afterAll(async () => {
  await web?.close();
});

interface Resources {
  cpu_user_s: number;
  cpu_system_s: number;
  max_rss_mb: number;
}

function manifestOf(out: string): { resources: Resources; crawl_process?: Resources; run_id: string } {
  const runs = readdirSync(path.join(out, '_runs')).filter((f) => f.endsWith('.json'));
  expect(runs).toHaveLength(1);
  return JSON.parse(readFileSync(path.join(out, '_runs', runs[0]!), 'utf8'));
}

/** Alive as the run lock judges a holder (a process being torn down is not). */
async function alive(pid: number): Promise<boolean> {
  return (await processState(pid)).kind === 'running';
}

describe('adsnap crawl: the crawl in a child process, the commit in its own', () => {
  it('commits what the child crawled: the manifest has the crawl process and both processes\' CPU', async () => {
    const out = path.join(tempDir(), 'two');
    const r = await runCli(['crawl', '--domains', list, '--out', out, '--no-sellers', '--progress', 'none', ...web.connectArgs]);
    expect(r.code, r.stderr).toBe(0);
    // One summary, printed by the committing process; not said to be resumed.
    expect(r.stdout.match(/^snapshot \S+ written to/gm)).toHaveLength(1);
    expect(r.stdout).not.toContain('resumed');
    expect(r.stdout).toMatch(/targets 60,/);
    const m = manifestOf(out);
    expect(m.crawl_process).toBeDefined();
    const crawl = m.crawl_process!;
    expect(m.resources.cpu_user_s).toBeGreaterThan(crawl.cpu_user_s);
    expect(m.resources.max_rss_mb).toBeGreaterThanOrEqual(crawl.max_rss_mb);
    expect(existsSync(path.join(out, '_staging', m.run_id))).toBe(false);
  }, 60_000);

  it('one process with ADSNAP_COMMIT_PROCESS=same, and for a list read from stdin', async () => {
    const same = path.join(tempDir(), 'same');
    const r1 = await runCli(['crawl', '--domains', list, '--out', same, '--no-sellers', '--progress', 'none', ...web.connectArgs], { env: { ADSNAP_COMMIT_PROCESS: 'same' } });
    expect(r1.code, r1.stderr).toBe(0);
    expect(manifestOf(same).crawl_process).toBeUndefined();
    const piped = path.join(tempDir(), 'stdin');
    const r2 = await runCli(['crawl', '--domains', '-', '--run-id', 'piped', '--out', piped, '--no-sellers', '--progress', 'none', ...web.connectArgs], { input: readFileSync(list, 'utf8') });
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stdout).toMatch(/targets 60,/);
    expect(manifestOf(piped).crawl_process).toBeUndefined();
  }, 60_000);

  it('SIGKILL of adsnap crawl takes its crawling child with it; the same command again finishes the run', async () => {
    const out = path.join(tempDir(), 'killed');
    const args = ['crawl', '--domains', list, '--out', out, '--no-sellers', '--progress', 'json', '--log-interval', '1', '--concurrency', '2', '--checkpoint-interval', '1', ...web.connectArgs];
    const child = spawnCli(args);
    child.stdin!.end();
    const closed = finished(child);
    // The crawl under way: its lock names the crawling process (the child), not the one spawned.
    const lockDir = path.join(out, '_staging');
    let holder = 0;
    for (let i = 0; i < 200 && !holder; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const lock = existsSync(lockDir) ? readdirSync(lockDir).find((f) => f.endsWith('.lock')) : undefined;
      if (lock) holder = (JSON.parse(readFileSync(path.join(lockDir, lock), 'utf8')) as { pid: number }).pid;
    }
    expect(holder).toBeGreaterThan(0);
    expect(holder).not.toBe(child.pid);
    // Its exit, not its stdio's close: the child shares the stdio, and would hold it open crawling on.
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    for (let i = 0; i < 100 && (await alive(holder)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await alive(holder)).toBe(false);
    await closed;
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/targets 60,/);
    expect(manifestOf(out).crawl_process).toBeDefined();
  }, 90_000);
});
