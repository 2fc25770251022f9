import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { tables } from '../../schemas/tables.js';
import { startSimweb, type Simweb } from '../../src/simweb/index.js';
import { listFiles } from './files.js';
import { runCli } from './run-cli.js';
import { snapshotRows, VOLATILE_COLUMNS } from './snapshot-rows.js';
import { useTempDirs } from './tmp.js';

/** The night every run-integrity drill crawls. */
export const DATE = '2026-11-22';

/**
 * A simulated web of 60 sites and the reference snapshot of an uninterrupted crawl of it, for the
 * drills that kill, lock and refuse runs (run-integrity, run-lock-takeover, run-bad-inputs): each
 * test file gets its own, so the files run in parallel. Call at the top level of a test file.
 */
export interface IntegrityRun {
  readonly web: Simweb;
  /** The file's temporary folder; the reference snapshot is `reference` in it. */
  readonly tmp: string;
  /** The reference crawl's domain list. */
  readonly list: string;
  /** The crawl command's arguments for a snapshot into `out`. */
  args(out: string, extra?: string[], domains?: string): string[];
  /** Every table of the snapshot in `out` holds the reference's rows, no more, no fewer. */
  expectSameAsReference(out: string): Promise<void>;
}

export function useIntegrityRun(prefix: string): IntegrityRun {
  const tempDir = useTempDirs(prefix);
  let web: Simweb | undefined;
  let tmp = '';
  let list = '';
  let reference: Record<string, string[]> = {};
  const args = (out: string, extra: string[] = [], domains = list) =>
    // --sellers-depth 0: the ad systems' sellers.json, not the 800 intermediaries' rounds behind them
    // (10 s a crawl; those rounds' kills and resumes are test/sellers-rounds.test.ts's).
    ['crawl', '--domains', domains, '--out', out, '--snapshot-date', DATE, '--progress', 'none', '--concurrency', '8', '--checkpoint-interval', '1', '--sellers-depth', '0', ...extra, ...web!.connectArgs];

  beforeAll(async () => {
    web = await startSimweb({ hosts: 60, latency: { minMs: 5, maxMs: 20 }, hostile: false, apps: 0 });
    tmp = tempDir();
    list = path.join(tmp, 'domains.txt');
    writeFileSync(list, [...web.domains()].join('\n') + '\n');
    const out = path.join(tmp, 'reference');
    const ref = await runCli(args(out));
    expect(ref.code, ref.stderr).toBe(0);
    reference = await snapshotRows(out, VOLATILE_COLUMNS);
  }, 60_000);

  afterAll(async () => {
    await web?.close();
  });

  return {
    get web() {
      return web!;
    },
    get tmp() {
      return tmp;
    },
    get list() {
      return list;
    },
    args,
    async expectSameAsReference(out) {
      const got = await snapshotRows(out, VOLATILE_COLUMNS);
      for (const name of Object.keys(tables)) expect(got[name], name).toEqual(reference[name]);
    },
  };
}

/** Resolves when the child has printed `text` on stderr `times` times. */
export function waitForStderr(child: ChildProcess, text: string, times = 1): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) if (l.includes(text) && ++seen === times) {
        child.stderr!.off('data', onData);
        resolve();
      }
    };
    child.stderr!.on('data', onData);
  });
}

/** The night's table parts (the derived tables under _derived/ are the derivation's: test/derived.test.ts). */
export const parquetFiles = (out: string) => listFiles(out).filter((f) => f.endsWith('.parquet') && !f.startsWith('_derived'));
