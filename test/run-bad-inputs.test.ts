import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATE, useIntegrityRun } from './helpers/integrity-run.js';
import { listFiles } from './helpers/files.js';
import { runCli } from './helpers/run-cli.js';

/**
 * Bad inputs at the edge: an --out that is a file, a list with no accepted entry, a stale bound
 * under three heartbeats, malformed lines. Each is refused with exit 2 and the output folder left
 * as it was, or reported with its line numbers and the manifest that keeps them.
 */
const run = useIntegrityRun('bad-inputs');
const { args } = run;

describe('bad inputs at the edge: exit 2, and the output folder as it was', () => {
  it('--out naming a file (crawl and report), or a path through a file', async () => {
    const file = path.join(run.tmp, 'not-a-dir');
    writeFileSync(file, 'precious\n');
    for (const out of [file, path.join(file, 'sub')]) {
      const crawl = await runCli(args(out));
      expect(crawl.code, out).toBe(2);
      expect(crawl.stderr).toMatch(out === file ? `--out ${file} is a file, not a directory` : `--out ${out}: ${file} is a file, so the directory cannot be made`);
      const report = await runCli(['report', path.join(run.tmp, 'reference'), '--out', out]);
      expect(report.code, out).toBe(2);
      expect(report.stderr).toContain(`${file} is a file`);
    }
    expect(readFileSync(file, 'utf8')).toBe('precious\n');
  });

  it('a list with no accepted entry, into an existing folder or from stdin: exit 2, nothing added', async () => {
    const out = path.join(run.tmp, 'kept');
    mkdirSync(out);
    writeFileSync(path.join(out, 'notes.txt'), 'mine\n');
    const empty = path.join(run.tmp, 'only-comments.txt');
    writeFileSync(empty, '# a header comment\n\n');
    const r = await runCli(args(out, [], empty));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has no accepted entry (2 lines, 0 malformed); nothing was created');
    expect(listFiles(out)).toEqual(['notes.txt']);

    const stdinOut = path.join(run.tmp, 'stdin-empty');
    const s = await runCli(['crawl', '--domains', '-', '--run-id', 'empty-night', '--out', stdinOut, '--snapshot-date', DATE, '--progress', 'none', ...run.web.connectArgs], { input: 'localhost\n' });
    expect(s.code, s.stderr).toBe(2);
    expect(s.stderr).toContain('the domain list stdin has no accepted entry (1 lines, 1 malformed); nothing was created\n  line 1: localhost: "localhost"');
    expect(existsSync(stdinOut)).toBe(false);
  });

  it('a stale bound shorter than three heartbeats is a usage error', async () => {
    const out = path.join(run.tmp, 'lock-knobs');
    const r = await runCli(args(out, ['--lock-heartbeat', '5000', '--lock-stale', '10000']));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('must be at least 3 heartbeats (15000 ms)');
    expect(existsSync(out)).toBe(false);
  });

  it('malformed lines of a list that crawls: the first few on stderr with line and reason, and the manifest that keeps them', async () => {
    const out = path.join(run.tmp, 'malformed');
    const mine = path.join(run.tmp, 'some-malformed.txt');
    const [a, b] = [...run.web.domains()];
    writeFileSync(mine, [a, 'not a domain!', b, '192.168.1.1', ...Array.from({ length: 6 }, (_, i) => `bad_${i}!`)].join('\n') + '\n');
    const r = await runCli(args(out, ['--no-sellers'], mine));
    expect(r.code, r.stderr).toBe(0);
    const [manifest] = readdirSync(path.join(out, '_runs'));
    const manifestPath = path.join(out, '_runs', manifest!);
    expect(r.stderr).toContain(
      `adsnap crawl: 8 malformed lines in the domain list (skipped):\n  line 2: invalid_name: "not a domain!"\n  line 4: ip_address: "192.168.1.1"\n  line 5: invalid_name: "bad_0!"\n  line 6: invalid_name: "bad_1!"\n  line 7: invalid_name: "bad_2!"\n  … and 3 more malformed lines\n  the first 8 with their reasons are in ${manifestPath} (list.malformedSamples)\n`,
    );
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as { list: { malformedSamples: { lineNo: number }[] }; options: { lock: unknown } };
    expect(m.list.malformedSamples.map((s) => s.lineNo)).toEqual([2, 4, 5, 6, 7, 8, 9, 10]);
    expect(m.options.lock).toEqual({ heartbeat_ms: 5000, stale_ms: 30000 });
  });
});
