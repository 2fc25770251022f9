import { Rng } from '../src/simweb/prng.js';
import { describe, expect, it } from 'vitest';
import { AdsTxtParser, HTML_LOOKAHEAD, parseAdsTxt, type AdsTxtParserOptions } from '../src/parse/adstxt/index.js';

/** Every event in order, as one list, for comparing two parses. */
function events(chunks: Uint8Array[], options: AdsTxtParserOptions = { fileKind: 'ads.txt' }) {
  const out: unknown[] = [];
  const p = new AdsTxtParser({ onRecord: (r) => out.push(['r', r]), onVariable: (v) => out.push(['v', v]), onIssue: (i) => out.push(['i', i]) }, options);
  for (const c of chunks) p.push(c);
  out.push(['s', p.end()]);
  return out;
}

const enc = (s: string) => new TextEncoder().encode(s);

/** A deterministic PRNG (the simulated web's) so failures reproduce. */
const prng = (seed: number) => {
  const rng = new Rng(seed);
  return () => rng.next();
};

const SAMPLE =
  '\uFEFF# ads.txt\r\ngoogle.com, pub-1, DIRECT, f08c47fec0942fa0\r\nAppNexus.com,\t2 ,reseller\rbad_domain.com,1,DIRECT\n' +
  'contact=ops@example.com # x\nOWNERDOMAIN=example.com\nMANAGERDOMAIN=m.com, us\nsubdomain=a.example.com\n' +
  'x.com, 1, DIRECT; ext=1\ny.com, 1, OTHER, c, d\n\n  \nplaceholder.example.com, placeholder, DIRECT, placeholder\nlast.com,9,RESELLER';

describe('incremental parsing', () => {
  it('gives the same events whatever the chunking (byte by byte, random sizes, whole)', () => {
    const bytes = enc(SAMPLE);
    const whole = events([bytes]);
    const single = events(Array.from(bytes, (b) => Uint8Array.of(b)));
    expect(single).toEqual(whole);
    const rnd = prng(7);
    for (let round = 0; round < 20; round++) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; ) {
        const n = 1 + Math.floor(rnd() * 17);
        chunks.push(bytes.subarray(i, i + n));
        i += n;
      }
      expect(events(chunks)).toEqual(whole);
    }
  });

  it('emits records as lines complete, before end()', () => {
    const seen: number[] = [];
    const p = new AdsTxtParser({ onRecord: (r) => seen.push(r.lineNo) }, { fileKind: 'ads.txt' });
    const lines = Array.from({ length: HTML_LOOKAHEAD + 4 }, (_, i) => `s${i}.com, ${i}, DIRECT\n`).join('');
    p.push(enc(lines));
    expect(seen).toHaveLength(HTML_LOOKAHEAD + 4); // the HTML lookahead is bounded
    p.push(enc('late.com, 1, DIRECT')); // no line end yet
    expect(seen).toHaveLength(HTML_LOOKAHEAD + 4);
    expect(p.end().records).toBe(HTML_LOOKAHEAD + 5);
  });

  it('parseAdsTxt accepts a string or bytes with the same result', () => {
    expect(parseAdsTxt(SAMPLE, { fileKind: 'ads.txt' })).toEqual(parseAdsTxt(enc(SAMPLE), { fileKind: 'ads.txt' }));
  });

  it('rejects bad options at the edge', () => {
    expect(() => new AdsTxtParser({}, { fileKind: 'robots.txt' as never })).toThrow(TypeError);
    expect(() => new AdsTxtParser({}, { fileKind: 'ads.txt', maxLineLength: 3 })).toThrow(TypeError);
  });
});

describe('encodings (spec-decisions; ads.txt 1.1 §3.1, §5.3)', () => {
  it('drops a UTF-8 BOM with an info issue', () => {
    const r = parseAdsTxt(Uint8Array.from([0xef, 0xbb, 0xbf, ...enc('a.com, 1, DIRECT')]), { fileKind: 'ads.txt' });
    expect(r.records[0]!.adSystemDomain).toBe('a.com');
    expect(r.issues).toMatchObject([{ code: 'UTF8_BOM', severity: 'info', lineNo: null }]);
  });

  it('decodes UTF-16 LE and BE with a BOM', () => {
    const text = 'a.com, 1, DIRECT\r\nb.com, 2, RESELLER\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le.subarray(2)).swap16();
    for (const bytes of [le, Buffer.concat([Buffer.from([0xfe, 0xff]), be])]) {
      const r = parseAdsTxt(bytes, { fileKind: 'app-ads.txt' });
      expect(r.records.map((x) => x.adSystemDomain)).toEqual(['a.com', 'b.com']);
      expect(r.issues.map((i) => i.code)).toEqual(['UTF16_ENCODING']);
    }
  });

  it('replaces invalid UTF-8 and notes it once, on the first line where it occurs', () => {
    const bytes = Uint8Array.from([...enc('a.com, 1, DIRECT\nb.com, x'), 0xff, ...enc(', DIRECT\nc.com, y'), 0xfe, ...enc(', DIRECT\n')]);
    const r = parseAdsTxt(bytes, { fileKind: 'ads.txt' });
    expect(r.records.map((x) => x.sellerAccountId)).toEqual(['1', 'x\uFFFD', 'y\uFFFD']);
    expect(r.issues).toMatchObject([{ code: 'INVALID_UTF8', severity: 'warning', lineNo: 2 }]);
  });
});

describe('HTML bodies (spec-decisions; ads.txt 1.1 §3.2.1)', () => {
  it('a body starting with a tag is `html`: one HTML_BODY error, no records', () => {
    for (const body of ['<!DOCTYPE html>\n<html><body>a.com, 1, DIRECT</body></html>', '\n\n  <html lang="en">\na.com, 1, DIRECT\n', '<?xml version="1.0"?>\n']) {
      const r = parseAdsTxt(body, { fileKind: 'ads.txt' });
      expect(r.summary.status, body).toBe('html');
      expect(r.records).toEqual([]);
      expect(r.variables).toEqual([]);
      expect(r.issues.map((i) => [i.code, i.severity])).toEqual([['HTML_BODY', 'error']]);
    }
  });

  it('a body whose first lines are mostly markup is `html` (bounded lookahead)', () => {
    const r = parseAdsTxt('404 Not Found\n<head>\n<title>x</title>\n</head>\n<body>\nsorry\n</body>\n', { fileKind: 'ads.txt' });
    expect(r.summary.status).toBe('html');
    expect(r.issues).toMatchObject([{ code: 'HTML_BODY', lineNo: 1, lineText: '404 Not Found' }]);
  });

  it('the decision is known after the first tag line, so the caller may stop reading', () => {
    const p = new AdsTxtParser({}, { fileKind: 'ads.txt' });
    p.push(enc('<html>\n'));
    expect(p.isHtml).toBe(true);
  });

  it('a real file with one stray markup line stays a file; the line is an error', () => {
    const r = parseAdsTxt('a.com, 1, DIRECT\n<br>\nb.com, 2, DIRECT\n', { fileKind: 'ads.txt' });
    expect(r.summary.status).toBe('ok');
    expect(r.records).toHaveLength(2);
    expect(r.issues.map((i) => [i.lineNo, i.code])).toEqual([[2, 'TOO_FEW_FIELDS']]);
  });
});

describe('canonical fast path', () => {
  it('gives exactly the general path’s events on many generated line variants', () => {
    const rnd = prng(42);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const domains = ['google.com', 'AppNexus.com', 'a-b.co.uk', 'xn--bcher-kva.example', 'bad_x.com', '1.2.3.4', 'a.123', '-a.com', 'a.b', 'placeholder.example.com', 'Bücher.de', 'x.com.', ''];
    const ids = ['pub-123', '12 34', 'placeholder', 'a=b', '', 'x\u00a0'];
    const rels = ['DIRECT', 'RESELLER', 'direct', 'Reseller', 'OTHER', 'DIRECTX', ''];
    const certs = [null, 'f08c47fec0942fa0', '', 'a b'];
    const blanks = ['', ' ', '\t', '  ', '\u00a0'];
    const tails = ['', ' # c', '#c, d', '; ext', ', extra', ',', ' ;'];
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const b = () => pick(blanks);
      const cert = pick(certs);
      lines.push(`${b()}${pick(domains)}${b()},${b()}${pick(ids)}${b()},${b()}${pick(rels)}${b()}${cert === null ? '' : `,${b()}${cert}${b()}`}${pick(tails)}`);
    }
    const body = enc(lines.join('\n'));
    const fast = events([body], { fileKind: 'ads.txt', canonicalFastPath: true });
    const general = events([body], { fileKind: 'ads.txt', canonicalFastPath: false });
    expect(fast).toEqual(general);
    expect(fast.length).toBeGreaterThan(3000);
  });
});
