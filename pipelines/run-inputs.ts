/**
 * A run's input: its lists as this attempt reads them (stdin copied into the staging folder) and
 * their fingerprints, checked against the checkpoint (a resume) or the manifest (a rerun of a
 * complete run). docs/design.md, "Run integrity".
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { spoolStream, type ListFingerprint } from '../src/sources/fingerprint.js';
import type { ListStats } from '../src/sources/domain-list.js';
import type { CrawlOptions, CrawlResult } from './crawl-options.js';
import type { RunState } from './run-state.js';
import type { RunStats } from './run-stats.js';

/** The input is not the one this run was started with (or committed from). */
export class RunInputChangedError extends Error {
  readonly code = 'RUN_INPUT_CHANGED';
}

export interface RunInputs {
  /** What the readers open: the list's path, or the copy of stdin. */
  domains: string | null;
  apps: string | null;
  fingerprints: RunState['inputs'];
}

/** The lists as this attempt reads them; stdin is copied into the run's staging folder first. */
export async function readInputs(o: CrawlOptions, stagingDir: string, files: { domains: ListFingerprint | null; apps: ListFingerprint | null }): Promise<RunInputs> {
  const one = async (input: string | null | undefined, name: string, fp: ListFingerprint | null) => {
    if (!input) return { path: null, fp: null };
    if (input !== '-') return { path: input, fp: { ...fp!, complete: true } };
    const spool = path.join(stagingDir, `${name}.stdin`);
    return { path: spool, fp: { ...(await spoolStream(process.stdin, spool)), complete: true } };
  };
  const d = await one(o.domains, 'domains', files.domains);
  const a = await one(o.apps, 'apps', files.apps);
  return { domains: d.path, apps: a.path, fingerprints: { domains: d.fp, apps: a.fp } };
}

export function checkSameInputs(saved: RunState, now: RunState['inputs']): void {
  for (const kind of ['domains', 'apps'] as const) {
    const was = saved.inputs[kind];
    const is = now[kind];
    if ((was === null) !== (is === null) || (was && is && (was.sha256 !== is.sha256 || was.bytes !== is.bytes))) {
      throw new RunInputChangedError(
        `the ${kind} list is not the one run ${saved.runId} started with (sha256 ${was?.sha256.slice(0, 16) ?? 'none'}…, ${was?.bytes ?? 0} bytes; now ${is?.sha256.slice(0, 16) ?? 'none'}…, ${is?.bytes ?? 0} bytes). ` +
          `A resume must read the same list: restore it, or run with --restart to discard the earlier attempt's work and crawl this list from the start.`,
      );
    }
  }
}

/** The run committed before: nothing to do, if it was committed from these very lists. */
export async function alreadyComplete(o: CrawlOptions, runId: string, snapshotDate: string, manifestFile: string, stats: RunStats, files: { domains: ListFingerprint | null; apps: ListFingerprint | null }): Promise<CrawlResult> {
  const m = JSON.parse(readFileSync(manifestFile, 'utf8')) as { list?: ListStats; app_list?: CrawlResult['appList']; tables?: CrawlResult['tables']; input_fingerprints?: RunState['inputs'] };
  for (const kind of ['domains', 'apps'] as const) {
    const input = kind === 'domains' ? o.domains : o.apps;
    const recorded = m.input_fingerprints?.[kind];
    if (!input || !recorded) continue;
    const now = input === '-' ? await hashStream(process.stdin) : files[kind]!;
    if (now.sha256 !== recorded.sha256) {
      throw new RunInputChangedError(
        `run ${runId} of ${snapshotDate} was committed from another ${kind} list (sha256 ${recorded.sha256.slice(0, 16)}…; this one is ${now.sha256.slice(0, 16)}…). ` +
          `Give this list a run of its own (--run-id NAME), or remove ${manifestFile} and the parts it lists to crawl it again.`,
      );
    }
  }
  stats.finished();
  return { runId, snapshotDate, manifestPath: manifestFile, stats, list: m.list ?? null, appList: m.app_list ?? null, tables: m.tables ?? {}, alreadyComplete: true, resumed: false };
}

async function hashStream(input: AsyncIterable<Uint8Array>): Promise<ListFingerprint> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const c of input) {
    h.update(c);
    bytes += c.length;
  }
  return { sha256: h.digest('hex'), bytes };
}

