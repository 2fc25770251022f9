import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureText, takeDebugFlag } from '../src/cli/failure.js';
import { closedPort } from './helpers/local-server.js';
import { runCli, type CliResult } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('cli-errors');

/**
 * A list provider that cannot serve (docs/reference/cli.md#exit-status): a condition that passes,
 * so exit 75 and one line naming the list, the URL and the cause; the stack trace only with
 * --debug or ADSNAP_DEBUG=1. Every provider here is local (127.0.0.1, port 0) or unroutable.
 */
let server: Server;
let base = '';
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const p = req.url ?? '';
    // Closes the connection before any answer (a proxy or a provider that drops us).
    if (p.startsWith('/closes/')) return void req.socket.destroy();
    if (p.startsWith('/busy/')) return void res.writeHead(503, { 'retry-after': '60' }).end('busy');
    // The metadata answers; the download of the list itself is cut off mid-body.
    if (p === '/cut/api/lists/date/latest') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ list_id: 'CUT01', available: true, created_on: '2026-11-25T00:00:00.000000' }));
    }
    if (p.startsWith('/cut/download/')) {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': '1000' });
      res.write('1,alpha.example\n');
      return void setTimeout(() => req.socket.destroy(), 20);
    }
    res.writeHead(404).end();
  });
  server.on('connection', (s) => sockets.add(s).size && s.on('close', () => sockets.delete(s)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

async function crawlTranco(providerUrl: string, extra: string[] = [], env?: Record<string, string>): Promise<CliResult & { out: string }> {
  const out = path.join(tempDir(), 'out');
  const r = await runCli(['crawl', '--domains', 'tranco:latest', '--list-provider-url', `tranco=${providerUrl}`, '--out', out, '--progress', 'none', ...extra], { env: { ADSNAP_DEBUG: '', ...env } });
  return { ...r, out };
}

const NOT_NOW = 'adsnap crawl: not now (exit 75: run the same command again later): tranco:latest: ';

function expectOneLine(r: CliResult): void {
  expect(r.stderr.split('\n'), r.stderr).toHaveLength(2);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('a named list whose provider cannot serve it: exit 75, one line, no stack trace unless --debug', () => {
  it('connection refused: names the list, the URL and the cause; nothing is created', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await crawlTranco(url);
    expect(r.code, r.stderr).toBe(75);
    expectOneLine(r);
    expect(r.stderr).toBe(`${NOT_NOW}the provider could not be reached and no cached copy exists (${url}/api/lists/date/latest: connection refused (ECONNREFUSED))\n`);
    expect(existsSync(r.out)).toBe(false);
  });

  it('with --debug (anywhere among the arguments) or ADSNAP_DEBUG=1: the same status, and the stack trace', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    for (const r of [await crawlTranco(url, ['--debug']), await crawlTranco(url, [], { ADSNAP_DEBUG: '1' })]) {
      expect(r.code, r.stderr).toBe(75);
      expect(r.stderr).toContain('tranco:latest: the provider could not be reached and no cached copy exists');
      expect(r.stderr).toMatch(/\n\s+at .*named-lists/);
    }
  });

  it('a provider that closes the connection, one that answers 503, a list download cut off: each exit 75 in one line', async () => {
    const closes = await crawlTranco(`${base}/closes`);
    expect([closes.code, closes.stderr]).toEqual([75, `${NOT_NOW}the provider could not be reached and no cached copy exists (${base}/closes/api/lists/date/latest: the connection was closed before an answer (UND_ERR_SOCKET))\n`]);
    const busy = await crawlTranco(`${base}/busy`);
    expect([busy.code, busy.stderr]).toEqual([75, `${NOT_NOW}the provider answered but could not serve the list now, and no cached copy exists (${base}/busy/api/lists/date/latest answered HTTP 503)\n`]);
    const cut = await crawlTranco(`${base}/cut`);
    expect(cut.code, cut.stderr).toBe(75);
    expectOneLine(cut);
    expect(cut.stderr.startsWith(`${NOT_NOW}the provider could not be reached and no cached copy exists (${base}/cut/download/CUT01/1000000: `)).toBe(true);
  });

  it('an unroutable provider (the IPv6 discard prefix, RFC 6666)', async () => {
    const r = await crawlTranco('http://[100::1]:9');
    expect(r.code, r.stderr).toBe(75);
    expectOneLine(r);
    expect(r.stderr).toContain('(http://[100::1]:9/api/lists/date/latest: ');
  }, 60_000);
});

describe('no stack trace without --debug on the CLI error path', () => {
  it('a run lock held by another run: exit 75 in one line', async () => {
    const out = tempDir();
    const list = path.join(out, 'list.txt');
    writeFileSync(list, 'example.com\n');
    // A lock being written this very moment (fresh, not yet readable) is held (store/run-lock.ts).
    mkdirSync(path.join(out, '_staging'));
    writeFileSync(path.join(out, '_staging', 'night1.lock'), '{');
    const r = await runCli(['crawl', '--domains', list, '--out', out, '--run-id', 'night1', '--progress', 'none'], { env: { ADSNAP_DEBUG: '' } });
    expect(r.code, r.stderr).toBe(75);
    expectOneLine(r);
    expect(r.stderr).toMatch(/^adsnap crawl: not now \(exit 75: run the same command again later\): another attempt of this run is alive/);
  });

  it('a fault adsnap did not foresee: its message and how to see where; the trace with --debug or ADSNAP_DEBUG=1 (failure.ts)', () => {
    const fault = new TypeError("Cannot read properties of undefined (reading 'x')");
    const coded = Object.assign(new Error('another attempt of this run is alive'), { code: 'RUN_LOCKED' });
    expect(takeDebugFlag(['crawl', '--out', 'o'], {})).toEqual(['crawl', '--out', 'o']);
    expect(failureText(fault)).toBe("Cannot read properties of undefined (reading 'x') (--debug or ADSNAP_DEBUG=1 prints where it happened)");
    expect([failureText(coded), failureText(new Error('ADSNAP_REPORT_MEMORY must be a size')), failureText('text')]).toEqual(['another attempt of this run is alive', 'ADSNAP_REPORT_MEMORY must be a size', 'text']);
    // --debug anywhere before a lone `--` (after it, an argument as any other), for every command.
    expect(takeDebugFlag(['--debug', 'sql', 'out', '--', '--debug'], {})).toEqual(['sql', 'out', '--', '--debug']);
    expect(failureText(fault)).toMatch(/^TypeError: Cannot read .*\n\s+at /);
    expect(failureText(new Error('outer', { cause: coded }))).toMatch(/^Error: outer\n[\s\S]*\ncaused by: Error: another attempt/);
    takeDebugFlag(['report'], { ADSNAP_DEBUG: '1' });
    expect(failureText(coded)).toMatch(/^Error: another attempt of this run is alive\n\s+at /);
    takeDebugFlag(['report'], {});
    expect(failureText(coded)).toBe('another attempt of this run is alive');
  });
});
