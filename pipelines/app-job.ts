import type { RobotsPolicy } from '../src/parse/robots/index.js';
import { parseStorePage, StorePageDeadlineError, type StorePageInfo } from '../src/parse/store/index.js';
import { FetchFailure } from '../src/fetch/errors.js';
import { appAdsTxtHosts } from '../src/resolve/developer-url.js';
import { appRow, type AppInput, type AppOutcome } from '../src/sources/apps.js';
import { hopRow } from '../src/tables/rows.js';
import { rootDomain } from '../src/util/domain.js';
import { crawlAdsFile, type AdsFileResult } from './ads-file-job.js';
import type { CrawlContext, Rows } from './context.js';
import { obtainFile } from './obtain-file.js';
import type { Referrals } from './referral-registry.js';
import type { AppsState } from './run-state.js';
import { crawlRobots, robotsAllows, robotsFor } from './robots-job.js';

/**
 * Per-run memory of the app half of the crawl: each store's robots.txt policy (store pages always
 * obey it), and each developer host's app-ads.txt result, so a host shared by many apps is
 * fetched once per snapshot. Both are bounded by distinct stores / developer hosts.
 */
export class AppRegistry {
  /**
   * `recordStoreRobots`: record the store's robots.txt rows where the listing is read; false in a
   * sharded run, where the shard owning the store host records them in stage 'referrals'.
   */
  constructor(readonly recordStoreRobots = true) {}

  readonly storeRobots = new Map<string, Promise<RobotsPolicy>>();
  readonly devHosts = new Map<string, Promise<DevHostResult>>();
  /** Settled results, for checkpoints. */
  private readonly settled = new Map<string, DevHostResult>();

  /** `by`: the scope of the work that fetched the host (provisional until it commits). */
  record(host: string, result: DevHostResult, by: Rows): void {
    this.settled.set(host, result);
    by.note('devHosts', host);
  }

  /** What a checkpoint keeps: hosts whose work is not committed yet are left out (it is redone). */
  toJSON(provisional: ReadonlyMap<string, ReadonlySet<string>> = new Map()) {
    const drop = provisional.get('devHosts');
    return { devHosts: [...this.settled].filter(([host]) => !drop?.has(host)) };
  }

  restore(saved: AppsState): void {
    for (const [host, result] of saved.devHosts) {
      this.settled.set(host, result);
      this.devHosts.set(host, Promise.resolve(result));
    }
  }
}

type DevHostResult = Pick<AdsFileResult, 'status' | 'found'>;

/** What an app's listing (or the list itself) says: a developer URL to follow, or a final outcome. */
export type Listing =
  | { kind: 'final'; outcome: AppOutcome }
  | { kind: 'developer'; developerUrl: string; source: string; bundleId: string | null; storeId: string | null };

/**
 * One app (app-ads.txt 1.0): the developer URL from the list or its store listing, then the
 * app-ads.txt of the developer host — the subdomain first, then its parent (Appendix A/B), HTTPS
 * before HTTP (inside the fetch stack). Writes `targets`, `apps`, `hops` and, once per host, the
 * developer host's files.
 */
export async function crawlApp(ctx: CrawlContext, app: AppInput, referrals: Referrals, reg: AppRegistry): Promise<void> {
  emitAppTarget(ctx, app);
  const listing = await readListing(ctx, app, referrals, reg);
  await finishApp(ctx, app, listing, referrals, reg);
}

export function emitAppTarget(ctx: CrawlContext, app: AppInput): void {
  ctx.out.emit('targets', { target: app.appKey, target_kind: 'app', rank: null, source: app.storeHost, input_line: app.inputLine, input_text: app.inputText });
}

/** Follows the listing's developer URL (if any) and writes the app's `apps` row. */
export async function finishApp(ctx: CrawlContext, app: AppInput, listing: Listing, referrals: Referrals, reg: AppRegistry): Promise<void> {
  const outcome = listing.kind === 'final' ? listing.outcome : await followDeveloperUrl(ctx, app, listing, referrals, reg);
  ctx.out.emit('apps', appRow(app, outcome));
  ctx.stats.appsDone++;
  await ctx.out.settle();
}

/** The first host of a listing's developer URL: the shard that owns it finishes the app. */
export function developerHost(listing: Listing): string | null {
  return listing.kind === 'developer' ? (appAdsTxtHosts(listing.developerUrl)?.[0]?.host ?? null) : null;
}

export async function readListing(ctx: CrawlContext, app: AppInput, referrals: Referrals, reg: AppRegistry): Promise<Listing> {
  if (app.developerUrl) return { kind: 'developer', developerUrl: app.developerUrl, source: 'input', bundleId: null, storeId: null };
  const res = await readStorePage(ctx, app, referrals, reg);
  if ('status' in res) return { kind: 'final', outcome: { developerUrl: null, developerUrlSource: null, subject: null, status: res.status } };
  const page = res.page;
  if (!page.participates) {
    // app-ads.txt 1.0: an empty appstore:developer_url means the app does not take part.
    const status = page.developerUrl === '' ? 'not_participating' : 'no_developer_url';
    return { kind: 'final', outcome: { developerUrl: page.developerUrl || null, developerUrlSource: page.source, bundleId: page.bundleId, storeId: page.storeId, subject: null, status } };
  }
  return { kind: 'developer', developerUrl: page.developerUrl!, source: page.source ?? 'meta', bundleId: page.bundleId, storeId: page.storeId };
}

async function followDeveloperUrl(ctx: CrawlContext, app: AppInput, listing: Extract<Listing, { kind: 'developer' }>, referrals: Referrals, reg: AppRegistry): Promise<AppOutcome> {
  const { developerUrl, source } = listing;
  const ids = { bundleId: listing.bundleId, storeId: listing.storeId };
  const hosts = appAdsTxtHosts(developerUrl);
  if (!hosts || hosts.length === 0) return { developerUrl, developerUrlSource: source, ...ids, subject: null, status: 'invalid_developer_url' };
  let lastStatus: string | null = null;
  for (const { host, via } of hosts) {
    ctx.out.emit('hops', hopRow(app.storeUrl, source === 'input' ? 'app_list' : 'store_page', via, host, 'followed', null, null));
    const res = await developerHostFile(ctx, host, referrals, reg);
    lastStatus = res.status;
    // app-ads.txt 1.0 Appendix B: only when no file is found on the subdomain, try its parent.
    if (res.found) return { developerUrl, developerUrlSource: source, ...ids, subject: host, status: res.status };
  }
  return { developerUrl, developerUrlSource: source, ...ids, subject: null, status: lastStatus };
}

/**
 * A developer host's robots.txt and app-ads.txt, crawled once per run whichever app reaches it
 * first. Their `files.via` is `developer_url` however apps reached the host (directly, or as the
 * parent of their developer URL's host): the first app to arrive depends on the crawl's timing, so
 * the file row cannot say it without flipping between runs; each app's own path is its `hops` row
 * (`developer_url` or `developer_url_parent`).
 */
function developerHostFile(ctx: CrawlContext, host: string, referrals: Referrals, reg: AppRegistry): Promise<Pick<AdsFileResult, 'status' | 'found'>> {
  const via = 'developer_url';
  let p = reg.devHosts.get(host);
  if (!p) {
    p = (async () => {
      const robots = await robotsFor(ctx, referrals, host, via);
      const res = await crawlAdsFile(ctx, { subject: host, fileKind: 'app-ads.txt', via, role: via, root: rootDomain(host) ?? host, robots }, referrals);
      for (const h of res.hops) if (h.outcome === 'followed' && h.kind === 'inventorypartnerdomain') referrals.addPartner(h.toSubject, ctx.out);
      const result = { status: res.status, found: res.found };
      reg.record(host, result, ctx.out);
      return result;
    })();
    reg.devHosts.set(host, p);
  }
  return p;
}

/** The parser's deadline is the request's: a `timeout` of the fetch (errors.ts), recorded as such. */
export function asFetchTimeout(err: unknown): never {
  if (err instanceof StorePageDeadlineError) throw new FetchFailure('timeout', err.message, { cause: err });
  throw err;
}

/** Store pages always obey the store's robots.txt (spec-decisions), fetched once per store host. */
async function readStorePage(ctx: CrawlContext, app: AppInput, referrals: Referrals, reg: AppRegistry): Promise<{ page: StorePageInfo } | { status: string }> {
  referrals.addStoreHost(app.storeHost, ctx.out);
  let robots = reg.storeRobots.get(app.storeHost);
  if (!robots) {
    // A sharded run leaves the recording of a store's robots.txt to the shard that owns the store host.
    robots = reg.recordStoreRobots ? robotsFor(ctx, referrals, app.storeHost, 'store') : crawlRobots(ctx, app.storeHost, 'store', false);
    reg.storeRobots.set(app.storeHost, robots);
  }
  const url = new URL(app.canonicalStoreUrl);
  if (robotsAllows(ctx, await robots, url.pathname + url.search) === false) return { status: 'disallowed_by_robots' };
  // Through obtainFile: a listing read in the last week (spec-decisions) is reused, not refetched.
  // The request's deadline reaches the parser (meta is null when an earlier copy is read again).
  const got = await obtainFile(ctx, { url: app.canonicalStoreUrl, kind: 'store_page', subject: app.appKey }, (body, meta) =>
    parseStorePage(body, app.store, { pageUrl: app.canonicalStoreUrl, deadlineAt: meta?.deadlineAt ?? null }).catch(asFetchTimeout),
  );
  if (got.file.fetchStatus !== null || got.body === null) return { status: `store_${got.file.fetchStatus ?? 'unreachable'}` };
  return { page: got.body };
}
