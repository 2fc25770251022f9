import { describe, expect, it } from 'vitest';
import { csvText, isFormulaLike } from '../src/text/csv.js';
import { visible, visibleLines } from '../src/text/visible.js';

describe('csvText (text/csv.ts)', () => {
  const row = ['=1+1', '+POOL3', '-2+3+cmd', '@SUM(A1)', '\tx', '\rx', '＝1', -2, '-12', '+3.5e2', 'plain', '', null, true, [1, 'a']] as const;
  const columns = row.map((_, i) => `c${i}`);

  it('faithful by default: RFC 4180 quoting only, NULL empty and "" an empty string', () => {
    expect(csvText(columns, [row])).toBe(`${columns.join(',')}\r\n=1+1,+POOL3,-2+3+cmd,@SUM(A1),\tx,"\rx",＝1,-2,-12,+3.5e2,plain,"",,true,"[1,""a""]"\r\n`);
  });

  it("spreadsheet-safe: a formula-like text cell gets a leading ' and quotes; numbers, numeric text and other cells are as they were", () => {
    expect(csvText(columns, [row], { spreadsheetSafe: true })).toBe(
      `${columns.join(',')}\r\n"'=1+1","'+POOL3","'-2+3+cmd","'@SUM(A1)","'\tx","'\rx","'＝1",-2,-12,+3.5e2,plain,"",,true,"[1,""a""]"\r\n`,
    );
  });

  it('isFormulaLike: the OWASP first characters, full-width forms too, but not numbers', () => {
    expect(['=A1', '+x', '-x', '@x', '\t', '\r1', '－1', '＠x'].map(isFormulaLike)).toEqual(Array(8).fill(true));
    expect(['-1', '+1.5', '-.5', '1e3', 'a=b', ' =1', ''].map(isFormulaLike)).toEqual(Array(7).fill(false));
  });

  it('a header and no rows is the header line alone', () => {
    expect(csvText(['a', 'b'], [])).toBe('a,b\r\n');
  });
});

describe('visible (text/visible.ts)', () => {
  it('shows C0, DEL and C1 controls, bidi controls and lone surrogates as escapes', () => {
    expect(visible('a\u001b[31mb\u0007\u007f\u009b\u202e\u2066x\ud800y\t\r\n')).toBe('a\\x1b[31mb\\x07\\x7f\\x9b\\u202e\\u2066x\\ud800y\\t\\r\\n');
  });

  it('leaves printable text alone, astral characters included', () => {
    expect(visible('ads.txt – ＝ 😀 \\ é')).toBe('ads.txt – ＝ 😀 \\ é');
  });

  it('visibleLines keeps line ends', () => {
    expect(visibleLines('one\u001b[2J\r\ntwo\n')).toBe('one\\x1b[2J\ntwo\n');
  });
});
