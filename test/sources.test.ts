import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readDomainList, type TargetInput } from '../src/sources/domain-list.js';
import { normaliseDomain } from '../src/sources/domain-normalise.js';
import { ListReadError, openLines, parseCsvLine } from '../src/sources/line-reader.js';
import { CompactStringSet } from '../src/util/compact-string-set.js';
import { corpusPath, describeWithCorpus, repoRoot } from './helpers/corpus.js';
import { makeZip } from './helpers/make-zip.js';
import { useTempDirs } from './helpers/tmp.js';

const dir = useTempDirs('sources')();

/** How many of this process's file descriptors are open on `file` (Linux: /proc/self/fd). */
function openDescriptorsOf(file: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // closed while listing (the listing's own descriptor)
    }
  }
  return n;
}
const file = (name: string, data: string | Uint8Array) => {
  const p = path.join(dir, name);
  writeFileSync(p, data);
  return p;
};

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function readAll(input: string, options?: Parameters<typeof readDomainList>[1]) {
  const { targets, stats } = readDomainList(input, options);
  const list = await collect(targets);
  return { list, stats };
}

describe('parseCsvLine (RFC 4180 §2)', () => {
  it('splits plain fields and keeps empty ones', () => {
    expect(parseCsvLine('1,google.com')).toEqual(['1', 'google.com']);
    expect(parseCsvLine('a,,c,')).toEqual(['a', '', 'c', '']);
  });
  it('handles quoted fields with commas and doubled quotes', () => {
    expect(parseCsvLine('"a,b",c')).toEqual(['a,b', 'c']);
    expect(parseCsvLine('"say ""hi""",x')).toEqual(['say "hi"', 'x']);
    expect(parseCsvLine('"",1')).toEqual(['', '1']);
  });
});

describe('normaliseDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['www.example.com', 'example.com'],
    ['https://www.example.com/path?q=1', 'example.com'],
    ['EXAMPLE.com.', 'example.com'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['http://www.münchen.de/', 'xn--mnchen-3ya.de'],
    ['shop.example.co.uk:8080/x', 'example.co.uk'],
    ['user.github.io', 'user.github.io'], // private PSL section: its own root
    ['a.b.blogspot.com', 'b.blogspot.com'],
    ['blogspot.com', 'blogspot.com'], // a private suffix that is an ICANN registrable site
  ])('%s → %s', (input, root) => {
    expect(normaliseDomain(input)).toMatchObject({ ok: true, root });
  });
  it.each([
    ['', 'empty'],
    ['127.0.0.1', 'ip_address'],
    ['http://[::1]/', 'ip_address'],
    ['localhost', 'localhost'],
    ['co.uk', 'public_suffix'],
    ['com', 'invalid_name'],
    ['foo_bar.com', 'invalid_name'],
    ['two words.com', 'invalid_name'],
    ['http://exa mple.com', 'invalid_name'],
    ['http://', 'bad_url'],
  ])('%j is malformed: %s', (input, reason) => {
    expect(normaliseDomain(input)).toEqual({ ok: false, reason });
  });
});

describe('CompactStringSet', () => {
  it('adds, detects duplicates and grows without losing members', () => {
    const s = new CompactStringSet(4);
    let added = 0;
    for (let i = 0; i < 50_000; i++) if (s.add(`d${i}.com`)) added++;
    expect(added).toBe(50_000);
    let again = 0;
    for (let i = 0; i < 50_000; i += 97) if (s.add(`d${i}.com`)) again++;
    expect(again).toBe(0);
    expect(s.size).toBe(50_000);
    expect(s.has('d49999.com')).toBe(true);
    expect(s.has('d50000.com')).toBe(false);
    expect(s.byteLength).toBeLessThanOrEqual(50_000 * 8 * 3);
  });
});

describe('readDomainList', () => {
  it("seen: de-duplicates with the caller's set, which then holds every accepted root", async () => {
    const seen = new CompactStringSet();
    seen.add('already.example');
    const p = file('seen.txt', 'a.example\nwww.a.example\nalready.example\nb.example\n');
    const { list, stats } = await readAll(p, { seen });
    expect(list.map((t) => t.target)).toEqual(['a.example', 'b.example']);
    expect(stats.duplicates).toBe(2);
    expect(['a.example', 'b.example', 'already.example'].map((d) => seen.has(d))).toEqual([true, true, true]);
    expect(seen.size).toBe(3);
  });

  it('plain text: BOM, comments, blanks, URLs, www., IDN, dedupe by root, line-order rank', async () => {
    const p = file('plain.txt', '\uFEFFexample.com\r\n# a comment\n\nwww.example.com\nhttps://news.example.org/a\nmünchen.de\n127.0.0.1\nco.uk\nEXAMPLE.net.\n');
    const { list, stats } = await readAll(p);
    expect(list).toEqual<TargetInput[]>([
      { target: 'example.com', rank: 1, source: 'plain.txt', inputLine: 1, inputText: 'example.com' },
      { target: 'example.org', rank: 2, source: 'plain.txt', inputLine: 5, inputText: 'https://news.example.org/a' },
      { target: 'xn--mnchen-3ya.de', rank: 3, source: 'plain.txt', inputLine: 6, inputText: 'münchen.de' },
      { target: 'example.net', rank: 4, source: 'plain.txt', inputLine: 9, inputText: 'EXAMPLE.net.' },
    ]);
    expect(stats).toMatchObject({ lines: 9, accepted: 4, duplicates: 1, malformed: 2, ignored: 2, layout: 'text', skippedHeader: false, complete: true });
    expect(stats.malformedSamples).toEqual([
      { lineNo: 7, text: '127.0.0.1', reason: 'ip_address' },
      { lineNo: 8, text: 'co.uk', reason: 'public_suffix' },
    ]);
    expect(stats.malformedByReason).toEqual({ ip_address: 1, public_suffix: 1 });
  });

  it('Tranco rank,domain keeps the list rank; a duplicate keeps the first (best) rank', async () => {
    const p = file('tranco.csv', '1,google.com\n2,www.google.com\n3,mail.ru\n17,a.blogspot.com\n');
    const { list, stats } = await readAll(p);
    expect(list.map((t) => [t.target, t.rank])).toEqual([['google.com', 1], ['mail.ru', 3], ['a.blogspot.com', 17]]);
    expect(stats).toMatchObject({ layout: 'rank_domain', duplicates: 1, accepted: 3 });
  });

  it('CSV with a header naming domain (any position) and rank; quoted fields', async () => {
    const p = file('hdr.csv', 'name,Domain,GlobalRank\n"Acme, Inc",acme.com,5\nX,"https://x.io/",7\nY,,9\n');
    const { list, stats } = await readAll(p, { sourceName: 'majestic' });
    expect(list).toEqual([
      { target: 'acme.com', rank: 5, source: 'majestic', inputLine: 2, inputText: 'acme.com' },
      { target: 'x.io', rank: 7, source: 'majestic', inputLine: 3, inputText: 'https://x.io/' },
    ]);
    expect(stats).toMatchObject({ skippedHeader: true, layout: 'csv_header', malformed: 1 });
    expect(stats.malformedSamples[0]).toMatchObject({ lineNo: 4, reason: 'empty' });
  });

  it('Chrome UX Report origin,rank: the origin is the domain, the rank bucket is kept, the header is not malformed', async () => {
    const p = file('crux.csv', 'origin,rank\nhttps://www.google.com,1000\nhttps://m.example.co.uk,1000\nhttp://news.example.org,5000\nhttps://www.google.com,10000\n');
    const { list, stats } = await readAll(p, { sourceName: 'crux' });
    expect(list.map((t) => [t.target, t.rank, t.inputLine])).toEqual([
      ['google.com', 1000, 2],
      ['example.co.uk', 1000, 3],
      ['example.org', 5000, 4],
    ]);
    expect(stats).toMatchObject({ skippedHeader: true, layout: 'csv_header', malformed: 0, duplicates: 1 });
  });

  it('Cloudflare Radar: a domain header alone, ranks by position, the header not malformed', async () => {
    const { list, stats } = await readAll(file('radar.csv', 'domain\ngoogle.com\nfacebook.com\n'));
    expect(list.map((t) => [t.target, t.rank, t.inputLine])).toEqual([['google.com', 1, 2], ['facebook.com', 2, 3]]);
    expect(stats).toMatchObject({ skippedHeader: true, malformed: 0 });
  });

  it('Majestic header: the rank is GlobalRank, not TldRank or a Prev* rank', async () => {
    const header = 'GlobalRank,TldRank,Domain,TLD,RefSubNets,RefIPs,IDN_Domain,IDN_TLD,PrevGlobalRank,PrevTldRank,PrevRefSubNets,PrevRefIPs';
    const rows = [
      '1,1,google.com,com,477491,2387237,google.com,com,1,1,476877,2384491',
      '2,2,facebook.com,com,474014,2414717,facebook.com,com,2,2,473567,2411795',
      '17,1,wikipedia.org,org,301234,1023456,wikipedia.org,org,16,1,301000,1023000',
      '45,3,bbc.co.uk,uk,200123,700456,bbc.co.uk,uk,44,3,200000,700000',
    ];
    const { list, stats } = await readAll(file('majestic.csv', [header, ...rows].join('\n') + '\n'));
    expect(list.map((t) => [t.target, t.rank, t.inputLine])).toEqual([
      ['google.com', 1, 2],
      ['facebook.com', 2, 3],
      ['wikipedia.org', 17, 4],
      ['bbc.co.uk', 45, 5],
    ]);
    expect(stats).toMatchObject({ skippedHeader: true, layout: 'csv_header', malformed: 0, accepted: 4 });
  });

  it('a header naming no known column is skipped, never malformed, and the next line decides the layout', async () => {
    // name,rank: no domain column; the data's first column is the domain and the header's rank column is kept.
    let r = await readAll(file('name-rank.csv', 'name,rank\ngoogle.com,5\nwww.example.org,9\n'));
    expect(r.list.map((t) => [t.target, t.rank, t.inputLine])).toEqual([['google.com', 5, 2], ['example.org', 9, 3]]);
    expect(r.stats).toMatchObject({ skippedHeader: true, layout: 'csv', malformed: 0, accepted: 2, lines: 3 });
    // A one-column text list with a label line (after a comment and a blank line).
    r = await readAll(file('domain-name.txt', '# exported\n\nDomain Name\nexample.com\nexample.net\n'));
    expect(r.list.map((t) => [t.target, t.rank, t.inputLine])).toEqual([['example.com', 1, 4], ['example.net', 2, 5]]);
    expect(r.stats).toMatchObject({ skippedHeader: true, layout: 'text', malformed: 0, ignored: 2 });
    // Quoted labels; a Tranco-style body after them.
    r = await readAll(file('quoted.csv', '"Rank","Name"\n1,google.com\n2,mail.ru\n'));
    expect(r.list.map((t) => [t.target, t.rank])).toEqual([['google.com', 1], ['mail.ru', 2]]);
    expect(r.stats).toMatchObject({ skippedHeader: true, layout: 'rank_domain', malformed: 0 });
  });

  it('only the first line can be such a header, and a line with a dot, a number or a URL is not one', async () => {
    // A label-like line later in the file is malformed as before.
    let r = await readAll(file('late.txt', 'example.com\nDomain Name\n'));
    expect(r.stats).toMatchObject({ skippedHeader: false, malformed: 1, accepted: 1 });
    // A first line with a number or a dotted value that does not normalise is data, counted malformed.
    r = await readAll(file('num.csv', '1,co.uk\n2,b.com\n'));
    expect(r.stats).toMatchObject({ skippedHeader: false, malformed: 1, layout: 'rank_domain' });
    expect(r.stats.malformedSamples[0]).toMatchObject({ lineNo: 1, reason: 'public_suffix' });
    r = await readAll(file('dotted.txt', 'co.uk\nb.com\n'));
    expect(r.stats).toMatchObject({ skippedHeader: false, malformed: 1 });
    r = await readAll(file('url.txt', 'http://\nb.com\n'));
    expect(r.stats).toMatchObject({ skippedHeader: false, malformed: 1 });
    // `localhost` is a host name, not a label: still malformed.
    r = await readAll(file('localhost.txt', 'localhost\nb.com\n'));
    expect(r.stats).toMatchObject({ skippedHeader: false, malformed: 1, malformedByReason: { localhost: 1 } });
    // A header alone: nothing read, nothing malformed.
    r = await readAll(file('only-header.csv', 'name,rank\n'));
    expect(r.stats).toMatchObject({ skippedHeader: true, accepted: 0, malformed: 0, lines: 1, complete: true });
  });

  it('a CSV row missing the domain column is malformed, not fatal', async () => {
    const p = file('short.csv', 'rank,domain\n1\n2,b.com\n');
    const { list, stats } = await readAll(p);
    expect(list.map((t) => t.target)).toEqual(['b.com']);
    expect(stats.malformedByReason).toEqual({ no_domain_field: 1 });
  });

  it('gzip input, detected by magic bytes even without the extension', async () => {
    const gz = gzipSync('1,a.com\n2,b.com\n');
    for (const name of ['list.csv.gz', 'list-no-ext']) {
      const { list } = await readAll(file(name, gz));
      expect(list.map((t) => [t.target, t.rank])).toEqual([['a.com', 1], ['b.com', 2]]);
    }
  });

  it('zip input: first file entry (directories skipped), or --zip-entry NAME', async () => {
    const zip = makeZip([
      { name: 'top/', data: '', method: 'store' },
      { name: 'top/first.csv', data: '1,first.com\n' },
      { name: 'second.txt', data: 'second.com\nthird.com\n', method: 'store' },
    ]);
    const p = file('lists.zip', zip);
    expect((await readAll(p)).list.map((t) => t.target)).toEqual(['first.com']);
    expect((await readAll(p, { zipEntry: 'second.txt' })).list.map((t) => t.target)).toEqual(['second.com', 'third.com']);
    await expect(readAll(p, { zipEntry: 'missing.txt' })).rejects.toMatchObject({ code: 'LIST_ZIP_NO_ENTRY' });
  });

  it('--limit stops early and says so', async () => {
    const p = file('many.txt', Array.from({ length: 1000 }, (_, i) => `site${i}.com`).join('\n'));
    const { list, stats } = await readAll(p, { limit: 10 });
    expect(list).toHaveLength(10);
    expect(stats).toMatchObject({ accepted: 10, stoppedAtLimit: true, complete: false, lines: 10 });
    expect((await readAll(p, { limit: 0 })).list).toEqual([]);
    expect(() => readDomainList(p, { limit: -1 })).toThrow(TypeError);
  });

  it('reads stdin (plain and gzip) in a child process', async () => {
    const script = `import { readDomainList } from './src/sources/domain-list.ts';
      const { targets, stats } = readDomainList('-');
      const out = []; for await (const t of targets) out.push(t.target + ':' + t.rank + ':' + t.source);
      console.log(JSON.stringify({ out, accepted: stats.accepted }));`;
    const run = (input: Uint8Array) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`))));
        child.stdin.end(input);
      });
    const expected = JSON.stringify({ out: ['a.com:1:stdin', 'b.org:2:stdin'], accepted: 2 });
    expect(await run(Buffer.from('a.com\nwww.b.org\n'))).toBe(expected);
    expect(await run(gzipSync('a.com\nwww.b.org\n'))).toBe(expected);
    expect(await run(makeZip([{ name: 'l.txt', data: 'a.com\nwww.b.org\n' }]))).toBe(expected);
  }, 30_000);
});

describe('openLines errors and early close', () => {
  const text = Array.from({ length: 20_000 }, () => `${randomBytes(6).toString('hex')}.com`).join('\n');

  it('a truncated gzip is a LIST_CORRUPT_GZIP error after the lines that were intact', async () => {
    const gz = gzipSync(text);
    const p = file('trunc.gz', gz.subarray(0, gz.length >> 1));
    let n = 0;
    const err = await (async () => {
      try {
        for await (const _ of openLines(p)) n++;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ListReadError);
    expect(err).toMatchObject({ code: 'LIST_CORRUPT_GZIP' });
    expect(n).toBeGreaterThan(1000);
  });

  it('garbage after a gzip header, or a .gz that is not gzip, is LIST_CORRUPT_GZIP', async () => {
    const bad = Buffer.from(gzipSync(text));
    bad.fill(0x41, 20, 400);
    await expect(collect(openLines(file('garbage.gz', bad)))).rejects.toMatchObject({ code: 'LIST_CORRUPT_GZIP' });
    await expect(collect(openLines(file('plain.gz', 'a.com\n')))).rejects.toMatchObject({ code: 'LIST_CORRUPT_GZIP' });
  });

  it('a corrupt zip is LIST_CORRUPT_ZIP; a missing file is LIST_UNREADABLE', async () => {
    const zip = makeZip([{ name: 'l.txt', data: text }]);
    await expect(collect(openLines(file('cut.zip', zip.subarray(0, zip.length - 30))))).rejects.toMatchObject({ code: 'LIST_CORRUPT_ZIP' });
    const flipped = Buffer.from(zip);
    flipped.fill(0xff, 60, 600); // inside the deflated data
    await expect(collect(openLines(file('flipped.zip', flipped)))).rejects.toMatchObject({ code: 'LIST_CORRUPT_ZIP' });
    await expect(collect(openLines(path.join(dir, 'nope.txt')))).rejects.toMatchObject({ code: 'LIST_UNREADABLE' });
  });

  it('stopping early closes the zip: when the loop is left, the file is released (10 runs)', async () => {
    const p = file('big.zip', makeZip([{ name: 'big.txt', data: text.repeat(5) }]));
    expect(openDescriptorsOf(p)).toBe(0);
    for (let run = 0; run < 10; run++) {
      let n = 0;
      for await (const _ of openLines(p)) {
        if (n === 0) expect(openDescriptorsOf(p)).toBeGreaterThan(0); // the check sees an open list
        if (++n === 1000) break;
      }
      expect(n).toBe(1000);
      expect(openDescriptorsOf(p)).toBe(0);
    }
    // and a list reader stopped by --limit on the same zip
    const { list } = await readAll(p, { limit: 5 });
    expect(list).toHaveLength(5);
    expect(openDescriptorsOf(p)).toBe(0);
  });
});

describeWithCorpus('real lists (corpus)', () => {
  it('Tranco-like 50k list: ranks kept, nothing fatal', async () => {
    const { list, stats } = await readAll(corpusPath('lists', 'top-1m-2025-02-tranco-like-first-50k.csv'));
    expect(stats.layout).toBe('rank_domain');
    expect(list[0]).toMatchObject({ target: 'google.com', rank: 1, inputLine: 1 });
    expect(stats.accepted + stats.duplicates + stats.malformed + stats.ignored).toBe(stats.lines);
    expect(stats.accepted).toBeGreaterThan(45_000);
  });
  it('Majestic CSV: header with Domain and GlobalRank columns', async () => {
    const { list, stats } = await readAll(corpusPath('lists', 'majestic-million-2026-03-first-15k.csv'), { limit: 3 });
    expect(stats.skippedHeader).toBe(true);
    expect(list.map((t) => [t.target, t.rank, t.inputLine])).toEqual([['google.com', 1, 2], ['facebook.com', 2, 3], ['youtube.com', 3, 4]]);
  });
});
