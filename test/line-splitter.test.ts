import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../src/text/line-splitter.js';

function split(chunks: (string | number[])[], maxLineLength?: number) {
  const lines: [string, number, boolean][] = [];
  const s = new LineSplitter((l, n, t) => lines.push([l, n, t]), { maxLineLength });
  for (const c of chunks) s.push(typeof c === 'string' ? new TextEncoder().encode(c) : Uint8Array.from(c));
  s.end();
  return { lines, s };
}

describe('LineSplitter', () => {
  it('ads.txt 1.1 §3.2: CR, LF and CRLF each end one line', () => {
    expect(split(['a\rb\nc\r\nd']).lines.map((l) => l[0])).toEqual(['a', 'b', 'c', 'd']);
    expect(split(['a\r\n\r\nb']).lines.map((l) => l[0])).toEqual(['a', '', 'b']);
  });

  it('a CRLF split across chunks is one line end', () => {
    expect(split(['a\r', '\nb']).lines.map((l) => l[0])).toEqual(['a', 'b']);
    expect(split(['a\r', 'b']).lines.map((l) => l[0])).toEqual(['a', 'b']);
  });

  it('a final line without a line end counts; a trailing line end adds none', () => {
    expect(split(['a\nb']).lines).toHaveLength(2);
    expect(split(['a\nb\n']).lines).toHaveLength(2);
    expect(split(['']).lines).toHaveLength(0);
  });

  it('drops a UTF-8 BOM, also when split across chunks', () => {
    const { lines, s } = split([[0xef], [0xbb, 0xbf, 0x61, 0x0a, 0x62]]);
    expect(lines.map((l) => l[0])).toEqual(['a', 'b']);
    expect(s.bom).toBe(true);
  });

  it('decodes UTF-16 LE and BE with a BOM', () => {
    const le = [0xff, 0xfe, 0x61, 0, 0x0a, 0, 0x62, 0];
    expect(split([le]).lines.map((l) => l[0])).toEqual(['a', 'b']);
    const be = [0xfe, 0xff, 0, 0x61, 0, 0x0a, 0, 0x62];
    const r = split([be]);
    expect(r.lines.map((l) => l[0])).toEqual(['a', 'b']);
    expect(r.s.encoding).toBe('utf-16be');
  });

  it('replaces invalid UTF-8 and says so; a literal U+FFFD is not an error', () => {
    const bad = split([[0x61, 0xff, 0x62]]);
    expect(bad.lines[0]![0]).toBe('a\uFFFDb');
    expect(bad.s.invalidUtf8).toBe(true);
    expect(split(['a\uFFFDb']).s.invalidUtf8).toBe(false);
  });

  it('keeps multi-byte characters split across chunks', () => {
    const bytes = [...new TextEncoder().encode('münchen\n')];
    expect(split([bytes.slice(0, 2), bytes.slice(2)]).lines[0]![0]).toBe('münchen');
  });

  it('cuts lines longer than maxLineLength and flags them', () => {
    const { lines } = split(['abcdefghij\nxy', 'z', 'uvw\nok'], 4);
    expect(lines).toEqual([
      ['abcd', 1, true],
      ['xyzu', 2, true],
      ['ok', 3, false],
    ]);
  });
});
