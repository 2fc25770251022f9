import { createHash } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { decodeBody } from '../src/fetch/body-reader.js';
import { Fetcher, resolveFetchConfig, type FetchOptions } from '../src/fetch/index.js';
import { noDns, readText, startLocalWeb, startSilentServer, type LocalWeb } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';

let tls: TestTls;
let web: LocalWeb;
let silent: Awaited<ReturnType<typeof startSilentServer>>;
const fetchers: Fetcher[] = [];

beforeAll(async () => {
  tls = await createTestTls();
  web = await startLocalWeb(tls);
  silent = await startSilentServer();
});
afterAll(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await web.close();
  await silent.close();
});

function fetcher(extra: FetchOptions = {}, rules: string[] = []): Fetcher {
  const f = new Fetcher(resolveFetchConfig({ connectTo: [...rules, ...web.connectTo], caCerts: [tls.caPem], resolver: noDns, retries: 0, ...extra }));
  fetchers.push(f);
  return f;
}
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
/** Counts bytes without keeping them. */
const countBytes = async (body: AsyncIterable<Uint8Array>) => {
  let n = 0;
  for await (const c of body) n += c.length;
  return n;
};

describe('byte caps, per kind, counted after decompression', () => {
  it('cuts a body at its kind cap: too_large, truncated, the first maxBytes kept and hashed', async () => {
    const big = 'x'.repeat(5000);
    web.reply('https://cap.example/ads.txt', 200, big);
    web.reply('https://cap.example/robots.txt', 200, big);
    const f = fetcher({ maxBytes: { 'ads.txt': 1000, 'robots.txt': 4000 } });
    const ads = await f.fetch({ url: 'https://cap.example/ads.txt', kind: 'ads.txt', subject: 'cap.example' }, readText);
    expect([ads.status, ads.error, ads.truncated, ads.bytes]).toEqual([200, 'too_large', true, 1000]);
    expect(ads.body).toBe(big.slice(0, 1000));
    expect(ads.sha256).toBe(sha(big.slice(0, 1000)));
    expect(ads.rows[0]).toMatchObject({ truncated: true, bytes: 1000, error: 'too_large' });
    const robots = await f.fetch({ url: 'https://cap.example/robots.txt', kind: 'robots.txt', subject: 'cap.example' }, readText);
    expect([robots.bytes, robots.truncated]).toEqual([4000, true]);
  });

  it('a body of exactly the cap is not truncated', async () => {
    web.reply('https://exact.example/ads.txt', 200, 'y'.repeat(1000));
    const o = await fetcher({ maxBytes: 1000 }).fetch({ url: 'https://exact.example/ads.txt', kind: 'ads.txt', subject: 'e' }, readText);
    expect([o.error, o.truncated, o.bytes, o.sha256]).toEqual([null, false, 1000, sha('y'.repeat(1000))]);
  });

  it('stops a gzip bomb by decoded bytes (10 MiB of zeros in ~10 KiB of gzip, cap 64 KiB)', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(20_000);
    web.route('https://bomb.example/ads.txt', (_q, res) => void res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(bomb));
    const o = await fetcher({ maxBytes: 64 * 1024 }).fetch({ url: 'https://bomb.example/ads.txt', kind: 'ads.txt', subject: 'b' }, countBytes);
    expect([o.error, o.truncated, o.bytes, o.body]).toEqual(['too_large', true, 65536, 65536]);
  });

  it('decodes gzip, deflate and br, and hashes the decoded bytes', async () => {
    const text = 'a.com, 1, DIRECT\n'.repeat(100);
    const enc: Array<[string, Buffer]> = [['gzip', gzipSync(text)], ['deflate', deflateSync(text)], ['br', brotliCompressSync(text)]];
    const f = fetcher();
    for (const [name, data] of enc) {
      web.route(`https://enc.example/${name}`, (q, res) => {
        expect(q.headers['accept-encoding']).toBe('gzip, deflate, br');
        res.writeHead(200, { 'content-encoding': name }).end(data);
      });
      const o = await f.fetch({ url: `https://enc.example/${name}`, kind: 'ads.txt', subject: 'enc' }, readText);
      expect([name, o.error, o.body, o.bytes, o.sha256]).toEqual([name, null, text, text.length, sha(text)]);
    }
  });

  it('reports decode for a corrupt or unknown Content-Encoding', async () => {
    web.route('https://bad.example/corrupt', (_q, res) => void res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('this is not gzip at all')));
    web.route('https://bad.example/unknown', (_q, res) => void res.writeHead(200, { 'content-encoding': 'compress' }).end('x'));
    const f = fetcher();
    expect((await f.fetch({ url: 'https://bad.example/corrupt', kind: 'ads.txt', subject: 'b' }, readText)).error).toBe('decode');
    const unknown = await f.fetch({ url: 'https://bad.example/unknown', kind: 'ads.txt', subject: 'b' }, readText);
    expect([unknown.status, unknown.error, unknown.body]).toEqual([200, 'decode', null]);
  });

  it('decodes two stacked codings; more than two is too_many_encodings, refused before any decoder is built', async () => {
    const text = 'a.com, 1, DIRECT\n'.repeat(50);
    web.route('https://stack.example/two', (_q, res) => void res.writeHead(200, { 'content-encoding': 'gzip, identity, gzip' }).end(gzipSync(gzipSync(text))));
    web.route('https://stack.example/three', (_q, res) => void res.writeHead(200, { 'content-encoding': 'gzip, gzip, gzip' }).end(gzipSync(gzipSync(gzipSync(text)))));
    // 16 KB of `br, `: thousands of codings in one header.
    const flood = Array(4000).fill('br').join(', ');
    web.route('https://stack.example/flood', (_q, res) => void res.writeHead(200, { 'content-encoding': flood }).end('x'));
    const f = fetcher();
    const two = await f.fetch({ url: 'https://stack.example/two', kind: 'ads.txt', subject: 's' }, readText);
    expect([two.error, two.body]).toEqual([null, text]);
    const three = await f.fetch({ url: 'https://stack.example/three', kind: 'ads.txt', subject: 's' }, readText);
    expect([three.status, three.error, three.body]).toEqual([200, 'too_many_encodings', null]);
    const flooded = await f.fetch({ url: 'https://stack.example/flood', kind: 'ads.txt', subject: 's' }, readText);
    expect([flooded.status, flooded.error, flooded.body]).toEqual([200, 'too_many_encodings', null]);
    // The check runs on the header alone: no stream is touched, so no decoder can have been built.
    const raw = Readable.from([]);
    expect(() => decodeBody(raw, flood)).toThrow(expect.objectContaining({ code: 'too_many_encodings' }));
    expect(() => decodeBody(raw, 'br, compress')).toThrow(expect.objectContaining({ code: 'decode' }));
  });
});

describe('deadlines', () => {
  it('cuts off a body trickled a byte at a time by the whole-request deadline', async () => {
    web.route('https://trickle.example/ads.txt', (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('a');
      const t = setInterval(() => res.write('b'), 40);
      res.on('close', () => clearInterval(t));
    });
    const t0 = performance.now();
    const o = await fetcher({ totalTimeoutMs: 300 }).fetch({ url: 'https://trickle.example/ads.txt', kind: 'ads.txt', subject: 't' }, readText);
    const took = performance.now() - t0;
    expect([o.status, o.error, o.body]).toEqual([200, 'timeout', null]);
    expect(o.bytes).toBeGreaterThan(0);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1500);
  });

  it('gives up waiting for headers at the headers deadline', async () => {
    web.route('https://mute.example/store', () => {
      /* never answers */
    });
    const o = await fetcher({ headersTimeoutMs: 200 }).fetch({ url: 'https://mute.example/store', kind: 'store_page', subject: 'm' }, readText);
    expect([o.status, o.error]).toEqual([null, 'timeout']);
    expect(o.rows[0]!.duration_ms).toBeLessThan(1500);
  });

  it('gives up a TLS handshake nobody answers at the connect deadline', async () => {
    const o = await fetcher({ connectTimeoutMs: 150, headersTimeoutMs: 10_000 }, [`:443:127.0.0.1:${silent.port}`]).fetch(
      { url: 'https://hang.example/sellers.json', kind: 'sellers.json', subject: 'h' },
      readText,
    );
    expect([o.status, o.error]).toEqual([null, 'timeout']);
    expect(o.rows[0]!.duration_ms).toBeLessThan(1500);
  });
});

describe('the body stream', () => {
  it('aborts the transfer when the consumer stops early', async () => {
    const TOTAL = 50 * 1024 * 1024;
    // Resolved by the server's own 'close' of the response, with what it had sent by then.
    let onClose!: (sent: number) => void;
    const sentAtClose = new Promise<number>((resolve) => (onClose = resolve));
    web.route('https://early.example/sellers.json', (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (sent < TOTAL) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => onClose(sent));
      pump();
    });
    const firstChunk = async (body: AsyncIterable<Uint8Array>) => {
      for await (const c of body) return c.length;
      return 0;
    };
    const o = await fetcher().fetch({ url: 'https://early.example/sellers.json', kind: 'sellers.json', subject: 'e' }, firstChunk);
    expect(o.error).toBeNull();
    expect(o.body).toBeGreaterThan(0);
    expect(o.bytes).toBe(o.body);
    // Had the client read on, the server would have sent all of it before closing.
    expect(await sentAtClose).toBeLessThan(TOTAL);
  });

  it('calls the consumer only for 2xx, and rethrows a consumer bug (not a web outcome)', async () => {
    web.reply('https://c.example/404', 404, 'nope');
    web.reply('https://c.example/ok', 200, 'fine');
    let calls = 0;
    const f = fetcher();
    await f.fetch({ url: 'https://c.example/404', kind: 'ads.txt', subject: 'c' }, async () => void calls++);
    expect(calls).toBe(0);
    await expect(
      f.fetch({ url: 'https://c.example/ok', kind: 'ads.txt', subject: 'c' }, async () => {
        throw new RangeError('parser bug');
      }),
    ).rejects.toThrow('parser bug');
    // The slots were released: the same host can be fetched again.
    expect((await f.fetch({ url: 'https://c.example/ok', kind: 'ads.txt', subject: 'c' }, readText)).body).toBe('fine');
    expect(f.stats().inFlight).toBe(0);
  });
});
