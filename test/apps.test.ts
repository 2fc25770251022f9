import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRow, parseAppLines, readAppList, recognizeStoreUrl, type AppInput } from '../src/sources/apps.js';
import { corpusPath, describeWithCorpus } from './helpers/corpus.js';

async function* linesOf(text: string) {
  let lineNo = 0;
  for (const line of text.split('\n')) yield { line, lineNo: ++lineNo };
}

async function collect(apps: AsyncIterable<AppInput>) {
  const out: AppInput[] = [];
  for await (const a of apps) out.push(a);
  return out;
}

describe('recognizeStoreUrl: store, key and canonical URL', () => {
  const cases: [string, string, string, string | null, string | null, string][] = [
    // url, store, appKey, bundleId, storeId, canonicalUrl
    ['https://play.google.com/store/apps/details?id=com.google.android.deskclock', 'google_play', 'play.google.com/com.google.android.deskclock', 'com.google.android.deskclock', 'com.google.android.deskclock', 'https://play.google.com/store/apps/details?id=com.google.android.deskclock'],
    ['play.google.com/store/apps/details?hl=de&id=com.a.b&utm_source=x', 'google_play', 'play.google.com/com.a.b', 'com.a.b', 'com.a.b', 'https://play.google.com/store/apps/details?id=com.a.b'],
    ['https://play.google.com/store/apps/details/Minecraft?id=com.mojang.minecraftpe&hl=en', 'google_play', 'play.google.com/com.mojang.minecraftpe', 'com.mojang.minecraftpe', 'com.mojang.minecraftpe', 'https://play.google.com/store/apps/details?id=com.mojang.minecraftpe'],
    ['market://details?id=com.a.b', 'google_play', 'play.google.com/com.a.b', 'com.a.b', 'com.a.b', 'https://play.google.com/store/apps/details?id=com.a.b'],
    // app-ads.txt 1.0 "Authoritative and canonical representation": country variants are one app.
    ['https://itunes.apple.com/fi/app/ab-classic/id343200656?mt=8', 'apple', 'apps.apple.com/343200656', null, '343200656', 'https://apps.apple.com/fi/app/ab-classic/id343200656'],
    ['https://itunes.apple.com/us/app/id1110145109', 'apple', 'apps.apple.com/1110145109', null, '1110145109', 'https://apps.apple.com/us/app/id1110145109'],
    ['https://apps.apple.com/-/app/-/id1002275138', 'apple', 'apps.apple.com/1002275138', null, '1002275138', 'https://apps.apple.com/us/app/id1002275138'],
    ['https://channelstore.roku.com/details/151908/the-roku-channel', 'roku', 'channelstore.roku.com/151908', null, '151908', 'https://channelstore.roku.com/details/151908'],
    ['https://channelstore.roku.com/en-gb/details/4f7c1d0a2b3c4d5e6f708192a3b4c5d6/x', 'roku', 'channelstore.roku.com/4f7c1d0a2b3c4d5e6f708192a3b4c5d6', null, '4f7c1d0a2b3c4d5e6f708192a3b4c5d6', 'https://channelstore.roku.com/details/4f7c1d0a2b3c4d5e6f708192a3b4c5d6'],
    ['https://www.amazon.com/Amazon-App-Tester/dp/B00BN3YZM2', 'amazon', 'amazon.com/B00BN3YZM2', null, 'B00BN3YZM2', 'https://www.amazon.com/dp/B00BN3YZM2'],
    ['https://amazon.com/gp/product/B00BN3YZM2/ref=x', 'amazon', 'amazon.com/B00BN3YZM2', null, 'B00BN3YZM2', 'https://www.amazon.com/dp/B00BN3YZM2'],
    ['https://www.amazon.co.uk/gp/mas/dl/android?asin=B00BN3YZM2', 'amazon', 'amazon.co.uk/B00BN3YZM2', null, 'B00BN3YZM2', 'https://www.amazon.co.uk/dp/B00BN3YZM2'],
    ['https://galaxystore.samsung.com/detail/com.sec.android.app.popupcalculator', 'samsung', 'galaxystore.samsung.com/com.sec.android.app.popupcalculator', 'com.sec.android.app.popupcalculator', 'com.sec.android.app.popupcalculator', 'https://galaxystore.samsung.com/detail/com.sec.android.app.popupcalculator'],
    ['http://apps.samsung.com/appquery/appDetail.as?appId=com.a.b', 'samsung', 'galaxystore.samsung.com/com.a.b', 'com.a.b', 'com.a.b', 'https://galaxystore.samsung.com/detail/com.a.b'],
    ['https://www.samsung.com/us/appstore/app/G15147002586', 'samsung', 'samsung.com/G15147002586', null, 'G15147002586', 'https://www.samsung.com/us/appstore/app/G15147002586'],
    ['https://us.lgappstv.com/main/tvapp/detail?appId=123456', 'lg', 'lgappstv.com/123456', null, '123456', 'https://us.lgappstv.com/main/tvapp/detail?appId=123456'],
    ['https://apps.microsoft.com/detail/9nblggh4nns1?hl=en-us', 'microsoft', 'apps.microsoft.com/9NBLGGH4NNS1', null, '9NBLGGH4NNS1', 'https://apps.microsoft.com/detail/9nblggh4nns1'],
    ['https://appgallery.huawei.com/#/app/C100000123', 'huawei', 'appgallery.huawei.com/C100000123', null, 'C100000123', 'https://appgallery.huawei.com/app/C100000123'],
    ['https://app.mi.com/details?id=com.a.b', 'xiaomi', 'app.mi.com/com.a.b', 'com.a.b', 'com.a.b', 'https://app.mi.com/details?id=com.a.b'],
    ['https://Store.Example.com/apps/42?b=2&utm_campaign=z&a=1#reviews', 'other', 'store.example.com/apps/42?a=1&b=2', null, null, 'https://store.example.com/apps/42?a=1&b=2'],
  ];
  it.each(cases)('%s', (url, store, appKey, bundleId, storeId, canonicalUrl) => {
    expect(recognizeStoreUrl(url)).toMatchObject({ store, appKey, bundleId, storeId, canonicalUrl });
  });

  it('store pages that are not app listings, and non-URLs, are not recognized', () => {
    for (const bad of [
      'https://play.google.com/store/apps/developer?id=Mojang',
      'https://play.google.com/store/apps/details?id=',
      'https://play.google.com/store/search?q=x',
      'https://apps.apple.com/us/developer/rovio/id298910979x',
      'https://www.amazon.com/s?k=games',
      'https://channelstore.roku.com/browse',
      'mailto:x@example.com',
      'not a url',
      'localhost',
      '',
    ]) {
      expect(recognizeStoreUrl(bad), bad).toBeNull();
    }
  });
});

describe('app lists', () => {
  it('de-duplicates with a fixed-size hash per app: 20k apps with 10 KB keys keep no key alive', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const pad = 'x'.repeat(10_000);
    async function* many() {
      for (let i = 0; i < 20_000; i++) yield { line: `https://play.google.com/store/apps/details?id=com.app${pad}.n${i}`, lineNo: i + 1 };
      yield { line: `https://play.google.com/store/apps/details?id=com.app${pad}.n7&hl=en`, lineNo: 20_001 }; // a duplicate
    }
    const { apps, stats } = parseAppLines(many());
    const it = apps[Symbol.asyncIterator]();
    gc();
    const before = process.memoryUsage().heapUsed;
    let n = 0;
    for (let r = await it.next(); !r.done; r = await it.next()) n++;
    gc();
    const grownMiB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    expect([n, stats.accepted, stats.duplicates]).toEqual([20_000, 20_000, 1]);
    // The keys alone are 200 MB; the hashes take a few hundred KB.
    expect(grownMiB).toBeLessThan(16);
  });

  it('plain text: one store URL per line; URL variants of one app are one app', async () => {
    const { apps, stats } = parseAppLines(
      linesOf(
        [
          '# my apps',
          'https://itunes.apple.com/fi/app/ab-classic/id343200656?mt=8',
          'https://itunes.apple.com/us/app/ab-classic/id343200656?mt=8',
          'https://itunes.apple.com/nl/app/ab-classic/id343200656?mt=8',
          '',
          'https://play.google.com/store/apps/details?id=com.a.b&utm_source=ad',
          'https://play.google.com/store/apps/developer?id=Someone',
          'https://play.google.com/store/apps/details?id=com.a.b&hl=fr',
        ].join('\n'),
      ),
    );
    const list = await collect(apps);
    expect(list.map((a) => [a.appKey, a.inputLine])).toEqual([
      ['apps.apple.com/343200656', 2],
      ['play.google.com/com.a.b', 6],
    ]);
    expect(stats).toMatchObject({ format: 'text', lines: 8, accepted: 2, duplicates: 3, malformed: 1 });
    expect(stats.malformedSamples).toEqual([{ lineNo: 7, text: 'https://play.google.com/store/apps/developer?id=Someone', reason: 'not an app store listing URL' }]);
    expect(list[0]).toMatchObject({ storeUrl: 'https://itunes.apple.com/fi/app/ab-classic/id343200656?mt=8', inputText: 'https://itunes.apple.com/fi/app/ab-classic/id343200656?mt=8', developerUrl: null });
  });

  it('CSV: store_url plus optional bundle_id, store_id, developer_url in any order, RFC 4180 quotes', async () => {
    const { apps, stats } = parseAppLines(
      linesOf(
        [
          'name,developer_url,store_url,bundle_id',
          '"Game, The",https://www.studio.example/,https://apps.apple.com/us/app/x/id123456,com.studio.game',
          'Other,,https://play.google.com/store/apps/details?id=com.b.c,',
          'No URL,https://x.example,,com.x',
        ].join('\n'),
      ),
    );
    const list = await collect(apps);
    expect(stats).toMatchObject({ format: 'csv', accepted: 2, malformed: 1, duplicates: 0 });
    // The URL's ids are the key; the CSV fills in what the URL does not carry (Apple's bundle id).
    expect(list[0]).toMatchObject({ store: 'apple', storeId: '123456', bundleId: 'com.studio.game', developerUrl: 'https://www.studio.example/', inputLine: 2 });
    expect(list[1]).toMatchObject({ store: 'google_play', bundleId: 'com.b.c', developerUrl: null });
    expect(stats.malformedSamples[0]).toMatchObject({ lineNo: 4, reason: 'no store_url' });
  });

  it('limit stops reading early', async () => {
    const text = Array.from({ length: 100 }, (_, i) => `https://play.google.com/store/apps/details?id=com.app.n${i}`).join('\n');
    const { apps, stats } = parseAppLines(linesOf(text), { limit: 5 });
    expect(await collect(apps)).toHaveLength(5);
    expect(stats.lines).toBe(5);
  });

  it('appRow builds the apps table row; ids from the store page override the list', async () => {
    const [app] = await collect(parseAppLines(linesOf('https://itunes.apple.com/us/app/id343200656')).apps);
    expect(appRow(app!, { developerUrl: 'https://www.rovio.com', developerUrlSource: 'page_link', bundleId: 'com.rovio.ab', subject: 'rovio.com', status: 'ok' })).toEqual({
      store: 'apple',
      store_url: 'https://itunes.apple.com/us/app/id343200656',
      bundle_id: 'com.rovio.ab',
      store_id: '343200656',
      developer_url: 'https://www.rovio.com',
      developer_url_source: 'page_link',
      subject: 'rovio.com',
      status: 'ok',
    });
  });
});

describe('readAppList from files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'adsnap-apps-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a gzip CSV through the shared line reader', async () => {
    const file = path.join(dir, 'apps.csv.gz');
    await writeFile(file, gzipSync('store_url,developer_url\r\nhttps://channelstore.roku.com/details/151908/x,rokudev.example\r\n'));
    const { apps, stats } = readAppList(file);
    const list = await collect(apps);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ store: 'roku', appKey: 'channelstore.roku.com/151908', developerUrl: 'rokudev.example', inputLine: 2 });
    expect(stats.format).toBe('csv');
  });
});

describeWithCorpus('AppGoblin export (corpus/lists)', () => {
  it('15.5k rows of Play and iOS apps with developer domains: each app once', async () => {
    const { apps, stats } = readAppList(corpusPath('lists', 'appgoblin-store-apps-developer-domains-2025-02.csv'));
    const list = await collect(apps);
    const keys = new Set(list.map((a) => a.appKey));
    expect(keys.size).toBe(list.length);
    expect(stats.malformed).toBe(0);
    expect(stats.accepted + stats.duplicates).toBe(stats.lines - 1);
    expect(new Set(list.map((a) => a.store))).toEqual(new Set(['google_play', 'apple']));
    // developer_domain_url is read as the developer URL: bulk data skips the store page.
    expect(list.every((a) => a.developerUrl !== null)).toBe(true);
    const ios = list.find((a) => a.store === 'apple')!;
    expect(ios.storeId).toMatch(/^\d+$/);
  });
});
