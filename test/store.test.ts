import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStorePage, parseStorePageHtml, type StoreName } from '../src/parse/store/index.js';
import { corpusPath, describeWithCorpus, repoRoot } from './helpers/corpus.js';

const samplesDir = path.join(repoRoot, 'data-samples/stores');
const expectations = JSON.parse(readFileSync(path.join(samplesDir, 'expected.json'), 'utf8')) as Record<string, { store: StoreName; pageUrl?: string; expected: unknown }>;
const enc = new TextEncoder();

async function* chunks(bytes: Uint8Array, size: number, pulled?: { n: number }) {
  for (let i = 0; i < bytes.length; i += size) {
    if (pulled) pulled.n++;
    yield bytes.subarray(i, i + size);
  }
}

describe('store page samples (data-samples/stores, expected.json)', () => {
  it.each(Object.keys(expectations))('%s', async (file) => {
    const { store, pageUrl, expected } = expectations[file]!;
    const html = readFileSync(path.join(samplesDir, file), 'utf8');
    expect(parseStorePageHtml(html, store, { pageUrl })).toEqual(expected);
    // Streamed bytes in small chunks (tags and multi-byte characters cut anywhere) give the same answer.
    for (const size of [1, 7, 64]) expect(await parseStorePage(chunks(enc.encode(html), size), store, { pageUrl })).toEqual(expected);
  });
});

describe('app-ads.txt 1.0 "Publish structured app information"', () => {
  const page = (head: string) => `<html><head>${head}</head><body></body></html>`;

  it('developer_url plus bundle_id or store_id makes a participating page', () => {
    const r = parseStorePageHtml(page('<meta name="appstore:developer_url" content="https://dev.example"><meta name="appstore:store_id" content="B00BN3YZM2">'), 'amazon');
    expect(r).toMatchObject({ developerUrl: 'https://dev.example', participates: true, storeId: 'B00BN3YZM2', bundleId: null, hasAppstoreTags: true, source: 'meta' });
  });

  it('an empty developer_url means the app does not take part, even if the page links a website', () => {
    const r = parseStorePageHtml(page('<meta name="appstore:developer_url" content="  "><meta name="appstore:bundle_id" content="a.b">') + '<a href="https://x.example">Website</a>', 'samsung');
    expect(r).toMatchObject({ developerUrl: '', participates: false, source: 'meta' });
  });

  it('developer_url without any id tag is used but the tags are incomplete', () => {
    expect(parseStorePageHtml(page('<meta name="appstore:developer_url" content="https://d.example">'), 'other')).toMatchObject({ participates: true, hasAppstoreTags: false });
  });

  it('meta tags are read by an HTML parser: entities, attribute order, case, unquoted values', () => {
    const r = parseStorePageHtml(page('<meta content=https://a.example/?x=1&amp;y=2 name=APPSTORE:DEVELOPER_URL><meta name="appstore:bundle_id" content="com.&#x61;pp">'), 'other');
    expect(r).toMatchObject({ developerUrl: 'https://a.example/?x=1&y=2', bundleId: 'com.app' });
  });

  it('a tag inside a comment or a script string is not a tag', () => {
    const r = parseStorePageHtml(page('<!-- <meta name="appstore:developer_url" content="https://fake.example"> --><script>var s = \'<meta name="appstore:developer_url" content="https://fake2.example">\';</script>'), 'other', { fallbacks: 'never' });
    expect(r.developerUrl).toBeNull();
  });

  it('Google Play publishes the tags, so its pages get no fallbacks by default', () => {
    const html = page('<script type="application/ld+json">{"@type":"SoftwareApplication","author":{"url":"https://dev.example"}}</script>');
    expect(parseStorePageHtml(html, 'google_play').developerUrl).toBeNull();
    expect(parseStorePageHtml(html, 'google_play', { fallbacks: 'always' })).toMatchObject({ developerUrl: 'https://dev.example', source: 'json_ld' });
    expect(parseStorePageHtml(html, 'apple', { fallbacks: 'never' }).developerUrl).toBeNull();
  });

  it('stops reading once the three tags are seen', async () => {
    const head = '<meta name="appstore:developer_url" content="https://d.example"><meta name="appstore:bundle_id" content="a.b"><meta name="appstore:store_id" content="a.b">';
    const html = enc.encode(page(head) + 'x'.repeat(100_000));
    const pulled = { n: 0 };
    const r = await parseStorePage(chunks(html, 1000, pulled), 'google_play');
    expect(r.participates).toBe(true);
    expect(pulled.n).toBeLessThan(3);
  });
});

describeWithCorpus('real Google Play pages (corpus/stores)', () => {
  const apps: [string, string, string][] = [
    ['googleplay-app-com.adex77.WhereAmI.html', 'https://whereamigame.app', 'com.adex77.WhereAmI'],
    ['googleplay-app-com.google.android.apps.translate.html', 'http://support.google.com/translate', 'com.google.android.apps.translate'],
    ['googleplay-app-com.mojang.minecraftpe.html', 'http://help.mojang.com', 'com.mojang.minecraftpe'],
  ];
  const pageUrl = 'https://play.google.com/store/apps/details?id=x';

  it.each(apps)('%s: appstore:* meta tags', async (file, developerUrl, bundle) => {
    const bytes = readFileSync(corpusPath('stores', file));
    const expected = { developerUrl, participates: true, bundleId: bundle, storeId: bundle, source: 'meta', hasAppstoreTags: true };
    expect(parseStorePageHtml(bytes.toString('utf8'), 'google_play')).toEqual(expected);
    expect(await parseStorePage(chunks(bytes, 65536), 'google_play')).toEqual(expected);
  });

  it.each(apps)('%s without its meta tags: JSON-LD, then the "Website" link, give the same developer URL', (file, developerUrl) => {
    const html = readFileSync(corpusPath('stores', file), 'utf8').replace(/<meta name="appstore:[^>]*>/g, '');
    const fromJsonLd = parseStorePageHtml(html, 'google_play', { fallbacks: 'always', pageUrl });
    expect(fromJsonLd).toMatchObject({ developerUrl, source: 'json_ld', participates: true, hasAppstoreTags: false });
    const noJsonLd = html.replace(/<script type="application\/ld\+json"[\s\S]*?<\/script>/g, '');
    expect(parseStorePageHtml(noJsonLd, 'google_play', { fallbacks: 'always', pageUrl })).toMatchObject({ developerUrl, source: 'page_link' });
  });

  it.each(['googleplay-developer-mojang.html', 'googleplay-datasafety-translate.html'])('%s (not an app page) gives no developer URL', (file) => {
    const r = parseStorePageHtml(readFileSync(corpusPath('stores', file), 'utf8'), 'google_play', { pageUrl });
    expect(r).toEqual({ developerUrl: null, participates: false, bundleId: null, storeId: null, source: null, hasAppstoreTags: false });
  });
});

describe('hostile store pages are read in linear time', () => {
  const meta = '<meta name="appstore:developer_url" content="https://dev.example/">';
  const page = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / unit.length)) + meta;
  /** Best of two runs (JIT and GC noise), and what the page gave. */
  const time = (html: string) => {
    let ms = Infinity;
    let url: string | null = null;
    for (let i = 0; i < 2; i++) {
      const t = performance.now();
      url = parseStorePageHtml(html, 'google_play', {}).developerUrl;
      ms = Math.min(ms, performance.now() - t);
    }
    return { ms, url };
  };

  it('3 MB of unclosed nested tags parses in linear time (within 20× the time of a flat page of the same size; quadratic took minutes), and the meta tag after them is found', () => {
    time(page('<p>x</p>', 300_000)); // warm-up
    const flat = time(page('<p>x</p>', 3_000_000));
    expect(flat.url).toBe('https://dev.example/');
    // htmlparser2's Parser took 113 s for 2.8 MB of <div> and 340 s of <b><i> (O(depth) per tag);
    // trimming its element stack still left <svg>/<mi> quadratic (its foreign-content stack); the reader keeps no stack.
    for (const unit of ['<div>', '<b><i>', '<span><div><a href="#">', '<svg>', '<math><mi>', '<mi>', '<foreignObject>', '<form>', '<li><ul>']) {
      const nested = time(page(unit, 3_000_000));
      expect(nested.url, unit).toBe('https://dev.example/');
      expect(nested.ms / flat.ms, unit).toBeLessThanOrEqual(20);
    }
    // Closing tags matching nothing under a deep stack (each one searched the whole stack).
    const misses = time('<div>'.repeat(100_000) + '</span>'.repeat(350_000) + meta);
    expect(misses.url).toBe('https://dev.example/');
    expect(misses.ms / flat.ms).toBeLessThanOrEqual(20);
  });

  it('the meta tag after 100k nested tags is found, with the other tags and in streamed chunks', async () => {
    const all = '<meta name="appstore:bundle_id" content="com.dev.app"><meta name="appstore:store_id" content="com.dev.app">';
    const html = '<html><body>' + '<div><span>'.repeat(50_000) + meta + all;
    const expected = { developerUrl: 'https://dev.example/', participates: true, bundleId: 'com.dev.app', storeId: 'com.dev.app', source: 'meta', hasAppstoreTags: true };
    expect(parseStorePageHtml(html, 'google_play')).toEqual(expected);
    expect(await parseStorePage(chunks(enc.encode(html), 65536), 'google_play')).toEqual(expected);
  });
});
