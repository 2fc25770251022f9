import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rows, UnitPool } from '../pipelines/context.js';
import { noneDone } from '../pipelines/pool.js';
import { Referrals } from '../pipelines/referral-registry.js';
import type { RunState } from '../pipelines/run-state.js';
import { RunStats } from '../pipelines/run-stats.js';
import { crawlPartners, earlyPartners, type PartnersSlice } from '../pipelines/step-partners.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { runCli } from './helpers/run-cli.js';
import { snapshotRows, VOLATILE_COLUMNS } from './helpers/snapshot-rows.js';
import { useTempDirs } from './helpers/tmp.js';

/** Rows that only take notes: the registry's bookkeeping, nothing written. */
const scope = { note() {} } as unknown as Rows;

function registry(partners: string[], claimed: string[] = [], roots: string[] = []): Referrals {
  const r = new Referrals();
  for (const p of partners) r.addPartner(p, scope);
  for (const c of claimed) r.claimSubject(c, scope);
  for (const root of roots) r.roots.add(root);
  return r;
}

const freshState = (): Pick<RunState, 'partnerList' | 'partnersEarly' | 'done'> => ({
  partnerList: null,
  partnersEarly: undefined,
  done: { domains: noneDone(), apps: noneDone(), partners: noneDone(), sellers: noneDone() },
});

describe('partners crawled beside the last listed sites', () => {
  it('takes the unclaimed partners known when the list runs out, leaves those inside a site still in flight, and fixes them in the state', () => {
    const state = freshState();
    const referrals = registry(['b.net', 'a.com', 'ads.inflight.org', 'inflight.org', 'done-sub.example', 'listed.com'], ['done-sub.example'], ['listed.com']);
    const owns = () => true;
    const early = earlyPartners({ state, referrals, owns }, new Set(['inflight.org']));
    // Sorted; a claimed subdomain, a listed root and the hosts of a root in flight (it may yet declare them subdomain=) are left out.
    expect(early).toEqual(['a.com', 'b.net']);
    expect(state).toMatchObject({ partnerList: ['a.com', 'b.net'], partnersEarly: true });
    // A resumed attempt gets the same ones at the same places, whatever is in flight then.
    referrals.addPartner('0-first.org', scope);
    expect(earlyPartners({ state, referrals, owns }, new Set())).toEqual(['a.com', 'b.net']);
  });

  it('the partner phase starts with them done and crawls the partners found after them', async () => {
    const state = freshState();
    const referrals = registry(['b.net', 'a.com', 'ads.inflight.org']);
    earlyPartners({ state, referrals, owns: () => true }, new Set(['inflight.org']));
    // Found after the list ran out (by the last sites, or the apps): c.org; a.com was claimed by its early crawl.
    referrals.addPartner('c.org', scope);
    referrals.claimSubject('a.com', scope);
    const seen: { items: string[]; skip: RunState['done']['partners'] }[] = [];
    const pool: UnitPool = async (items) => void seen.push({ items: [...(items as Iterable<string>)] as string[], skip: { ...state.done.partners } });
    const slice: PartnersSlice = { state, referrals, stats: new RunStats(), owns: () => true, pool };
    await crawlPartners(slice);
    expect(seen).toEqual([{ items: ['a.com', 'b.net', 'ads.inflight.org', 'c.org'], skip: { prefix: 2, extra: [] } }]);
    expect(state.partnersEarly).toBe(false);
    // Resumed in the partner phase: the same list, not extended again.
    referrals.addPartner('d.org', scope);
    await crawlPartners(slice);
    expect(seen[1]!.items).toEqual(['a.com', 'b.net', 'ads.inflight.org', 'c.org']);
  });
});

describe('a crawl whose partners go beside its last sites', () => {
  const tempDir = useTempDirs('partners-early');
  let web: Simweb;
  let list: string;
  let tmp: string;
  beforeAll(async () => {
    web = await startSimweb({ hosts: 120, latency: { minMs: 5, maxMs: 40 }, hostile: false, apps: 0 });
    tmp = tempDir();
    list = path.join(tmp, 'domains.txt');
    writeFileSync(list, [...web.domains()].join('\n') + '\n');
  });
  afterAll(async () => {
    await web?.close();
  });

  it('crawls every partner once: the same rows with a few lanes (few sites in flight when the list runs out) and with many', async () => {
    const crawl = async (name: string, concurrency: number) => {
      const out = path.join(tmp, name);
      const r = await runCli(['crawl', '--domains', list, '--out', out, '--snapshot-date', '2026-11-22', '--progress', 'none', '--concurrency', String(concurrency), '--sellers-depth', '0', ...web.connectArgs]);
      expect(r.code, r.stderr).toBe(0);
      return snapshotRows(out, VOLATILE_COLUMNS);
    };
    const [few, many] = [await crawl('few', 4), await crawl('many', 64)];
    const partnerFiles = many.files!.filter((f) => JSON.parse(f).via === 'inventorypartnerdomain');
    expect(partnerFiles.length).toBeGreaterThan(0);
    for (const name of ['files', 'hops', 'ads_records', 'targets', 'robots_rules']) expect(many[name], name).toEqual(few[name]);
  }, 120_000);
});
