/**
 * `adsnap crawl` crawls in a child process and commits in its own. The commit's DuckDB (the
 * compaction, then the derived tables) sets a night's peak memory, and a crawl process keeps
 * 200–260 MB it no longer uses by then (a forced collection does not hand it back: its heap is a
 * third of it; the rest is the allocator's and the runtime's). So the child crawls until the run is
 * sealed (`CrawlOptions.untilSealed`: parts staged, checkpoint in phase 'compact') and exits; this
 * process, which has crawled nothing, then resumes the run, that is, commits it. A 1M-site night's
 * compaction alone peaked at 468 MB; in the crawl's process it would sit on top of those 200–260 MB
 * (docs/performance.md).
 *
 * The two are one command to whoever runs it:
 * - the child shares stdin, stdout and stderr (its progress and errors print as they would), and
 *   prints nothing on stdout when it stops sealed: this process prints the run's summary;
 * - it runs in a process group of its own, so a terminal's Ctrl-C reaches this process only, which
 *   passes SIGINT and SIGTERM on to the child once each (a crawl stops at a checkpoint);
 * - it dies at once, by SIGKILL, when this process dies (its IPC channel closes): a killed
 *   `adsnap crawl` leaves no crawl behind, and the next attempt finds the run as a kill leaves it;
 * - its exit status is the command's when it fails, and the commit's when it did not.
 *
 * Not for a list read from stdin (the commit would need it again: one process does both then),
 * nor when ADSNAP_COMMIT_PROCESS=same asks for one process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { CrawlOptions, CrawlResult } from '../../pipelines/crawl-options.js';
import { packageRoot } from '../util/package-root.js';
import { EXIT } from './exit-codes.js';
import { debugging } from './failure.js';

/** Set in the child's environment: crawl until sealed, then tell the parent. */
const CHILD_ENV = 'ADSNAP_CRAWL_CHILD';

/**
 * And what this process resolved that the child must not resolve again: the snapshot date (a
 * crawl that runs past midnight is still the night it started, and its run id, which this process
 * finds the run by, is made from it), and a named list's provenance (the child finds the list in
 * the cache this process filled, but the run downloaded it).
 */
const HANDED_ENV = 'ADSNAP_CRAWL_CHILD_OPTIONS';

type Handed = Pick<CrawlOptions, 'snapshotDate' | 'namedList'>;

/** What the child tells this process when it stops sealed. */
interface SealedMessage {
  sealed: true;
  resumed: boolean;
}

export type CrawlProcess = 'child' | 'parent' | 'one';

/** Which part this process plays: the crawling child, the parent that commits, or both in one process. */
export function crawlProcess(options: Pick<CrawlOptions, 'domains' | 'apps'>, env: NodeJS.ProcessEnv = process.env): CrawlProcess {
  if (env[CHILD_ENV] === '1') return 'child';
  if (env.ADSNAP_COMMIT_PROCESS === 'same' || options.domains === '-' || options.apps === '-') return 'one';
  return 'parent';
}

/** The child's side: dies with its parent; says it stopped sealed (or not) and whether its crawl resumed. */
export function asCrawlChild(): { handed: Handed; sealed(result: CrawlResult): Promise<boolean> } {
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  // The channel does not keep the child alive: it exits when its work is done, as a crawl does.
  process.channel?.unref();
  return {
    handed: JSON.parse(process.env[HANDED_ENV] ?? '{}') as Handed,
    async sealed(result) {
      if (!result.sealedOnly) return false;
      const message: SealedMessage = { sealed: true, resumed: result.resumed };
      await new Promise<void>((resolve, reject) => process.send!(message, (err: Error | null) => (err ? reject(err) : resolve())));
      return true;
    },
  };
}

/**
 * The parent's side: runs `adsnap crawl argv` as the child, with what `options` resolved, and
 * waits for it. `sealed` when it stopped sealed (then this process commits), else the exit status
 * to end with.
 */
export async function crawlInChild(argv: readonly string[], options: CrawlOptions): Promise<{ sealed: true; resumed: boolean } | { sealed: false; status: number }> {
  const bin = path.join(packageRoot(), 'bin', 'adsnap.js');
  const handed: Handed = { snapshotDate: options.snapshotDate, ...(options.namedList ? { namedList: options.namedList } : {}) };
  const child = fork(bin, [...(debugging() ? ['--debug'] : []), 'crawl', ...argv], {
    env: { ...process.env, [CHILD_ENV]: '1', [HANDED_ENV]: JSON.stringify(handed) },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  const forward = (sig: NodeJS.Signals) => child.kill(sig);
  process.once('SIGTERM', forward);
  process.once('SIGINT', forward);
  let said: SealedMessage | null = null;
  child.on('message', (m: SealedMessage) => (said = m?.sealed === true ? m : null));
  try {
    const [code, signal] = await exited(child);
    if (said !== null && code === 0) return { sealed: true, resumed: (said as SealedMessage).resumed };
    return { sealed: false, status: code ?? (signal ? EXIT.failed : EXIT.done) };
  } finally {
    process.off('SIGTERM', forward);
    process.off('SIGINT', forward);
  }
}

function exited(child: ChildProcess): Promise<[number | null, NodeJS.Signals | null]> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve([code, signal]));
  });
}
