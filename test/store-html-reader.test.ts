import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Parser } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher, resolveFetchConfig } from '../src/fetch/index.js';
import type { HtmlHandler } from '../src/parse/store/html-reader.js';
import { StorePageScanner } from '../src/parse/store/store-page-scanner.js';
import { parseStorePage, StorePageDeadlineError, type StorePageInfo } from '../src/parse/store/index.js';
import { asFetchTimeout } from '../pipelines/app-job.js';
import { corpusDir, corpusPath, hasCorpus, repoRoot } from './helpers/corpus.js';
import { noDns, startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';

/** What a scanner collected, read by htmlparser2's tree-building Parser (the reference) or by FlatHtmlReader. */
function scan(parts: string[], reader: 'parser' | 'flat') {
  const factory = reader === 'parser' ? (h: HtmlHandler) => new Parser(h, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true }) : undefined;
  const s = new StorePageScanner(true, new URL('https://store.example/app/1'), factory);
  for (const c of parts) s.write(c);
  s.end();
  return { meta: [...s.meta], jsonLd: s.jsonLdUrls, links: s.linkUrls, altIds: s.altIds };
}

function split(html: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < html.length; i += size) out.push(html.slice(i, i + size));
  return out;
}

/** mulberry32: a seeded generator, so a failure names its document. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pieces that exercise the Parser's rules: implied closes, void elements, a second <form>,
// foreign content (SVG name adjustments, integration points, CDATA, self-closing), raw-text
// elements, entities, attribute spellings and duplicates, stray closing tags (</p>, </br>).
const PIECES = [
  '<div>', '</div>', '<p>', '</p>', '<span>', '</span>', '<b>', '<i>', '</b>', '</i>', '<a href="https://dev.example/">', '<A HREF=/x title=t>', '</a>', '</A>',
  '<a/>', '<div/>', '<br>', '</br>', '<br/>', '<img src=x>', '<image src=y>', '<hr>', '<input value=1>', '<meta name="appstore:developer_url" content="https://m.example/?a=1&amp;b=2">',
  '<meta property="al:android:package" content="com.x">', '<meta name=apple-itunes-app content="app-id=123">', '<meta content=c name=NAME name=second>',
  '<svg>', '</svg>', '<svg/>', '<math>', '</math>', '<mi>', '</mi>', '<mo>', '<foreignObject>', '</foreignobject>', '<foreignobject>', '</foreignObject>', '<clippath>', '</clipPath>', '</clippath>',
  '<desc>', '</desc>', '<title>t &amp; u</title>', '<![CDATA[cdata <x>]]>', '<!-- comment <a> -->', '<!doctype html>', '<?pi x?>',
  '<form>', '</form>', '<li>', '</li>', '<ul>', '</ul>', '<table>', '<tr>', '<td>', '<th>', '<tbody>', '<thead>', '<tfoot>', '</table>', '</tr>', '<h1>', '<h2>', '</h1>',
  '<select>', '<option>', '<optgroup>', '<button>', '<textarea>t<b></textarea>', '<dd>', '<dt>', '<rt>', '<rp>', '<body>', '<head>', '</head>', '<html>', '</html>', '<link rel=x>',
  '<script type="application/ld+json">{"author":{"url":"https://j.example/"}}</script>', '<script>var s = "<a href=x>";</script>', '<style>a{}</style>', '<xmp><b></xmp>', '<noscript>', '</noscript>',
  'Website', ' text ', '&amp;', '&lt;', '&#x61;', '&#98;', '&nbsp;', '&notanentity;', '&amp', 'a < b', '</>', '<', '>', '"', "'", '<x-custom a=1 a=2 b>', '</unknown>', '<DIV CLASS="c">', '\n',
];

function randomDoc(seed: number, pieces: number): string {
  const r = rng(seed);
  let s = '';
  for (let i = 0; i < pieces; i++) s += PIECES[Math.floor(r() * PIECES.length)]!;
  return s;
}

describe('FlatHtmlReader reads store pages as the tree-building Parser did', () => {
  it('on 400 generated documents, whole and cut into chunks of 1, 7 and 4096 characters: the same tags, ids and JSON-LD', () => {
    let found = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const html = randomDoc(seed, 300);
      const want = { ...scan([html], 'parser'), links: [] };
      found += want.meta.length + want.jsonLd.length;
      // Links are left out here: in the Parser a link also ends when an element opened before it
      // closes, which only a tree knows; on real pages (below) the links are the same.
      for (const size of [html.length, 1, 7, 4096]) expect({ ...scan(split(html, size), 'flat'), links: [] }, `seed ${seed} / ${size}`).toEqual(want);
    }
    expect(found).toBeGreaterThan(300);
  });

  it('a link runs to its </a>, to the next <a>, or to the end of the page', () => {
    const links = (html: string) => scan([html], 'flat').links;
    expect(links('<a href="https://one.example/">Website</a> Website')).toEqual(['https://one.example/']);
    expect(links('<a href="https://one.example/"><span>Website</span><a href="https://two.example/">Website')).toEqual(['https://one.example/', 'https://two.example/']);
    expect(links('<a href="https://one.example/">Privacy policy</a> Website')).toEqual([]);
  });

  it('on the store page samples and fixtures of the repo, everything alike', () => {
    const files = [
      ...readdirSync(path.join(repoRoot, 'data-samples/stores')).filter((f) => f.endsWith('.html')).map((f) => path.join(repoRoot, 'data-samples/stores', f)),
      ...readdirSync(path.join(repoRoot, 'data-samples/simweb-fixtures/play.google.com')).map((f) => path.join(repoRoot, 'data-samples/simweb-fixtures/play.google.com', f)),
    ];
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const html = readFileSync(f, 'utf8');
      expect(scan(split(html, 500), 'flat'), f).toEqual(scan([html], 'parser'));
    }
  });

  it.skipIf(!hasCorpus)('on the real store pages of the corpus (corpus/stores), everything alike', () => {
    const dir = corpusPath('stores');
    const files = readdirSync(dir).filter((f) => f.endsWith('.html'));
    expect(files.length, corpusDir).toBeGreaterThan(0);
    let found = 0;
    for (const f of files) {
      const html = readFileSync(path.join(dir, f), 'utf8');
      const want = scan([html], 'parser');
      expect(scan(split(html, 65536), 'flat'), f).toEqual(want);
      found += want.meta.length + want.jsonLd.length + want.links.length;
    }
    expect(found).toBeGreaterThan(0);
  });
});

const meta = '<meta name="appstore:developer_url" content="https://dev.example/">';
const enc = new TextEncoder();

describe('the request deadline is checked while a store page is parsed', () => {
  /** 10 chunks of nested tags; the clock moves 10 ms per chunk pulled. */
  function clockedBody(clock: { t: number; pulled: number; closed: boolean }, tail = '') {
    return (async function* () {
      try {
        for (let i = 0; i < 10; i++) {
          clock.pulled++;
          clock.t += 10;
          yield enc.encode('<div><b>'.repeat(1000) + (i === 9 ? tail : ''));
        }
      } finally {
        clock.closed = true;
      }
    })();
  }

  it('gives up after the first chunk parsed past the deadline: StorePageDeadlineError, reading stopped', async () => {
    const clock = { t: 0, pulled: 0, closed: false };
    const p = parseStorePage(clockedBody(clock, meta), 'google_play', { deadlineAt: 35, now: () => clock.t });
    await expect(p).rejects.toThrow(StorePageDeadlineError);
    expect([clock.pulled, clock.closed]).toEqual([4, true]);
  });

  it('reads to the end when the deadline is not reached, or when there is none', async () => {
    for (const deadlineAt of [1000, null]) {
      const clock = { t: 0, pulled: 0, closed: false };
      const r = await parseStorePage(clockedBody(clock, meta), 'google_play', { deadlineAt, now: () => clock.t });
      expect([r.developerUrl, clock.pulled]).toEqual(['https://dev.example/', 10]);
    }
  });

  it('an answer complete before the deadline is kept (the three tags end the reading)', async () => {
    const clock = { t: 0, pulled: 0, closed: false };
    const tags = meta + '<meta name="appstore:bundle_id" content="b"><meta name="appstore:store_id" content="s">';
    const body = (async function* () {
      clock.t += 50;
      clock.pulled++;
      yield enc.encode(tags);
      clock.pulled++;
      yield enc.encode('never read');
    })();
    const r = await parseStorePage(body, 'google_play', { deadlineAt: 10, now: () => clock.t });
    expect([r.developerUrl, r.bundleId, r.storeId, clock.pulled]).toEqual(['https://dev.example/', 'b', 's', 1]);
  });

  describe('through the fetch stack (local server)', () => {
    let tls: TestTls;
    let web: LocalWeb;
    let fetcher: Fetcher;
    beforeAll(async () => {
      tls = await createTestTls();
      web = await startLocalWeb(tls);
      fetcher = new Fetcher(resolveFetchConfig({ connectTo: web.connectTo, caCerts: [tls.caPem], resolver: noDns, retries: 0, totalTimeoutMs: 30_000 }));
      web.reply('https://store.example/app', 200, '<html><body>' + '<div>'.repeat(20_000) + meta, { 'content-type': 'text/html' });
    });
    afterAll(async () => {
      await fetcher.close();
      await web.close();
    });

    const get = async (now: (deadlineAt: number) => number) => {
      let seenDeadline = NaN;
      let atConsume = NaN;
      const before = performance.now();
      const o = await fetcher.fetch<StorePageInfo>({ url: 'https://store.example/app', kind: 'store_page', subject: 'app' }, (body, m) => {
        seenDeadline = m.deadlineAt;
        atConsume = performance.now();
        // As the app job reads a store page: the parser's deadline becomes the fetch's timeout.
        return parseStorePage(body, 'google_play', { deadlineAt: m.deadlineAt, now: () => now(m.deadlineAt) }).catch(asFetchTimeout);
      });
      return { o, seenDeadline, before, atConsume };
    };

    it('the response carries its whole-request deadline to the parser', async () => {
      const { o, seenDeadline, before, atConsume } = await get((d) => d - 1);
      expect([o.status, o.error, o.body?.developerUrl]).toEqual([200, null, 'https://dev.example/']);
      // 30 s (totalTimeoutMs) from when the request was sent: after `before`, before the body came.
      expect(seenDeadline).toBeGreaterThanOrEqual(before + 30_000);
      expect(seenDeadline).toBeLessThanOrEqual(atConsume + 30_000);
    });

    it('a deadline passed while parsing is the fetch error timeout, recorded in the fetches row', async () => {
      const { o } = await get((d) => d + 1);
      expect([o.status, o.error, o.body]).toEqual([200, 'timeout', null]);
      expect(o.rows.map((r) => r.error)).toEqual(['timeout']);
    });
  });
});
