import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AdsTxtParser, HTML_LOOKAHEAD, parseAdsTxt, type AdsFileKind, type AdsRecord, type AdsVariable } from '../src/parse/adstxt/index.js';
import { corpusPath, describeWithCorpus, hasCorpus } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';

/**
 * The HTML sniffing may never turn a file of valid lines into `html` (field 4 and
 * extensions are free text, ads.txt 1.1 §3.2.2, §3.4.3; a served 2xx file is parsed, §3.1),
 * while a real HTML page still is one.
 */
const ads = (body: string) => parseAdsTxt(body, { fileKind: 'ads.txt' });

describe('lines that yield a record or a variable never make a body `html`', () => {
  it('the issue\'s line: a certification id written `<invalid>` is a record', () => {
    const r = ads('greenadexchange.com,185,DIRECT,<invalid>\n');
    expect(r.summary.status).toBe('ok');
    expect(r.records).toMatchObject([{ adSystemDomain: 'greenadexchange.com', sellerAccountId: '185', relationship: 'DIRECT', certAuthorityId: '<invalid>' }]);
    expect(r.issues).toEqual([]);
  });

  it('the same through `adsnap parse --kind ads.txt -`', async () => {
    const r = await runCli(['parse', '--kind', 'ads.txt', '-'], { input: 'greenadexchange.com,185,DIRECT,<invalid>\n' });
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; status?: string; records?: number });
    expect(events.map((e) => e.type)).toEqual(['record', 'summary']);
    expect(events.at(-1)).toMatchObject({ status: 'ok', records: 1 });
  });

  it('a whole lookahead of records and variables ending with `>` stays a file', () => {
    const lines = [
      'a.com, 1, DIRECT, <f08c47fec0942fa0>',
      'b.com, 2, RESELLER ; <ext>',
      'CONTACT=<mailto:ads@example.com>',
      'c.com, 3, direct, <x>  # comment <b>',
      'd.com, 4, OTHER, <y>',
      'e.com, 5, DIRECT, <a>, <b>',
      'OWNERDOMAIN=<example.com>',
      'f.com, 6 7, DIRECT, <z>',
      'g.com, 8, DIRECT, </td>',
    ];
    const r = ads(lines.join('\n'));
    expect(r.summary.status).toBe('ok');
    expect(r.summary.records + r.summary.variables).toBe(lines.length);
    expect(r.issues.every((i) => i.severity !== 'error')).toBe(true);
  });

  it('records after markup from a PHP notice are read; the markup lines are errors', () => {
    const body = ['<br />', '<b>Warning</b>:  Undefined variable $x in <b>/var/www/ads.php</b> on line <b>12</b><br />', 'a.com, 1, DIRECT', 'b.com, 2, RESELLER, <c>', 'c.com, 3, DIRECT'].join('\n');
    const r = ads(body);
    expect(r.summary.status).toBe('ok');
    expect(r.records.map((x) => x.adSystemDomain)).toEqual(['a.com', 'b.com', 'c.com']);
    expect(r.issues.map((i) => [i.lineNo, i.code])).toEqual([
      [1, 'TOO_FEW_FIELDS'],
      [2, 'TOO_FEW_FIELDS'],
    ]);
  });

  it('a long PHP notice (markup on most of the first lines) still leaves the records after it read', () => {
    const notice = ['<br />', '<b>Warning</b>:  include(ads.php): Failed to open stream in <b>/var/www/index.php</b> on line <b>4</b><br />', '<br />', '<b>Warning</b>:  include(): Failed opening <b>ads.php</b><br />', '<br />', '<b>Notice</b>:  Undefined index: q in <b>/var/www/index.php</b> on line <b>9</b><br />'];
    const records = Array.from({ length: 40 }, (_, i) => `ad${i}.com, ${i}, DIRECT`);
    const r = ads([...notice, ...records].join('\n'));
    expect(r.summary.status).toBe('ok');
    expect(r.records).toHaveLength(40);
    expect(r.issues.map((i) => i.lineNo)).toEqual([1, 2, 3, 4, 5, 6]);
    // Fed in one-byte chunks, the streaming parser decides the same.
    let n = 0;
    const p = new AdsTxtParser({ onRecord: () => void n++ }, { fileKind: 'ads.txt' });
    const body = Buffer.from([...notice, ...records].join('\n'));
    for (let i = 0; i < body.length; i++) p.push(body.subarray(i, i + 1));
    expect([p.end().status, n]).toEqual(['ok', 40]);
  });

  it('generated records with markup in the free-text fields: never `html`, every record kept', () => {
    const rnd = prng(16);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const free = ['<x>', '</p>', '<br/>', '<!-- c -->', '<html>', 'id>', '<', '>', '<<>>', '"><script>'];
    const rels = ['DIRECT', 'RESELLER', 'direct', 'Other'];
    for (let n = 0; n < 300; n++) {
      const lines: string[] = [];
      let data = 0;
      for (let i = 0; i < 1 + Math.floor(rnd() * (HTML_LOOKAHEAD + 3)); i++) {
        const roll = rnd();
        if (roll < 0.1) lines.push(pick(['', '# <html>', '   ']));
        else if (roll < 0.25) (lines.push(`${pick(['CONTACT', 'SUBDOMAIN', 'X-Note'])}=${pick(free)}`), data++);
        else {
          const tail = pick([`, ${pick(free)}`, ` ; ${pick(free)}`, `, f08c, ${pick(free)}`, `, ${pick(free)} # ${pick(free)}`]);
          lines.push(`s${n}-${i}.com, ${pick(['1', 'pub-2', '<3>'])}, ${pick(rels)}${tail}`);
          data++;
        }
      }
      const r = ads(lines.join(pick(['\n', '\r\n'])));
      expect(r.summary.status, lines.join('\n')).not.toBe('html');
      expect(r.summary.records + r.summary.variables, lines.join('\n')).toBe(data);
    }
  });
});

describe('an HTML page is still `html`', () => {
  it.each([
    ['doctype', '<!doctype html>\n<title>x</title>\n'],
    ['<html>', '\n  <HTML lang="en">\na.com, 1, DIRECT\n'],
    ['<head>', '<head><title>404</title></head>\n'],
    ['<body>', '<body>\n<pre>\na.com, 1, DIRECT\nb.com, 2, DIRECT\nc.com, 3, DIRECT\nd.com, 4, DIRECT\n</pre>\n</body>\n'],
    ['<meta>', '<meta name="viewport" content="width=device-width">\na.com, 1, DIRECT\n'],
    ['<?xml>', '<?xml version="1.0"?>\n<Error><Code>NoSuchKey</Code></Error>\n'],
    ['comment', '<!-- generated -->\n<div>a.com, 1, DIRECT</div>\n'],
    ['mostly markup after text', '404 Not Found\n<head>\n<title>x</title>\n</head>\n<body>\nsorry\n</body>\n'],
    ['markup without a document tag', '<div class="error">\n<h1>Not found</h1>\n<p>Sorry.</p>\n</div>\n'],
  ])('%s', (_, body) => {
    const r = ads(body);
    expect(r.summary.status).toBe('html');
    expect(r.records).toEqual([]);
    expect(r.issues.map((i) => i.code)).toEqual(['HTML_BODY']);
  });

  it('a document tag decides at once, so the caller may stop reading', () => {
    for (const first of ['<!DOCTYPE html>', '<html>', '<head>', '<body class="x">']) {
      const p = new AdsTxtParser({}, { fileKind: 'ads.txt' });
      p.push(new TextEncoder().encode(`${first}\n`));
      expect(p.isHtml, first).toBe(true);
    }
    const p = new AdsTxtParser({}, { fileKind: 'ads.txt' });
    p.push(new TextEncoder().encode('<header>\n'));
    expect(p.isHtml).toBe(false); // not a document start: the lookahead decides
  });
});

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const dataFiles = hasCorpus
  ? [...readdirSync(corpusPath('adstxt')).map((f) => ['adstxt', f] as const), ...readdirSync(corpusPath('app-ads')).map((f) => ['app-ads', f] as const)]
  : [];

describeWithCorpus('corpus: real records with markup, real HTML pages', () => {
  it('every record and variable of the real files, rewritten with `<…>` free text, 8 lines a body: never `html`', () => {
    let bodies = 0;
    const problems: string[] = [];
    for (const [dir, name] of dataFiles) {
      const kind: AdsFileKind = dir === 'app-ads' ? 'app-ads.txt' : 'ads.txt';
      const records: AdsRecord[] = [];
      const variables: AdsVariable[] = [];
      const p = new AdsTxtParser({ onRecord: (r) => records.push(r), onVariable: (v) => variables.push(v) }, { fileKind: kind });
      p.push(readFileSync(corpusPath(dir, name)));
      if (p.end().status === 'html') problems.push(`${dir}/${name}: html`);
      const lines = [
        ...records.map((r) => `${r.adSystemDomain}, ${r.sellerAccountId}, ${r.relationship}, <${r.certAuthorityId ?? 'cert'}>${r.extension === null ? '' : ` ; <${r.extension}>`}`),
        ...variables.map((v) => `${v.name}=<${v.value}>`),
      ];
      for (let i = 0; i < lines.length; i += HTML_LOOKAHEAD) {
        const chunk = lines.slice(i, i + HTML_LOOKAHEAD);
        const r = parseAdsTxt(chunk.join('\n'), { fileKind: kind });
        bodies++;
        if (r.summary.status === 'html' || r.summary.records + r.summary.variables !== chunk.length) problems.push(`${dir}/${name} lines ${i + 1}…: ${r.summary.status}, ${r.summary.records + r.summary.variables}/${chunk.length}`);
      }
    }
    expect(problems).toEqual([]);
    expect(bodies).toBeGreaterThan(5_000); // the corpus holds tens of thousands of records
  });

  it('the HTML pages that sites served as robots.txt are `html` when read as ads.txt', () => {
    const pages = readdirSync(corpusPath('robots'))
      .map((f) => readFileSync(corpusPath('robots', f)))
      .filter((b) => /^(?:\ufeff)?\s*<(?:!doctype|html|head|body)\b/i.test(b.toString('utf8')));
    expect(pages.length).toBeGreaterThan(100);
    const notHtml = pages.map((b) => parseAdsTxt(b, { fileKind: 'ads.txt' })).filter((r) => r.summary.status !== 'html');
    expect(notHtml).toEqual([]);
  });
});
