import { describe, expect, it } from 'vitest';
import type { CrawlContext } from '../pipelines/context.js';
import { previousOf, willRequest } from '../pipelines/obtain-file.js';
import type { PreviousFile } from '../src/store/previous-snapshot.js';

/**
 * willRequest: whether a file will need the network in this run, so a job can close its
 * connection after the last request it really makes to a host (on the next night, robots.txt
 * may need revalidating while ads.txt is still fresh).
 */
const NOW = new Date('2026-11-22T02:00:00Z');
const HOUR = 3_600_000;

function earlier(over: Partial<PreviousFile>): PreviousFile {
  return {
    subject: 'site.example',
    fileKind: 'ads.txt',
    url: 'https://site.example/ads.txt',
    status: 'ok',
    httpStatus: 200,
    sha256: 'a'.repeat(64),
    etag: null,
    lastModified: null,
    contentType: 'text/plain',
    fetchedAt: new Date(NOW.getTime() - 25 * HOUR),
    freshUntil: new Date(NOW.getTime() + 6 * 24 * HOUR),
    bytes: 120,
    truncated: false,
    hasBody: true,
    ...over,
  };
}

function ctxWith(prev: PreviousFile | null, reuseFresh = true): CrawlContext {
  const previous = { get: async () => prev };
  return { incremental: { previous, now: NOW, reuseFresh } } as unknown as CrawlContext;
}

/** The domain job's use: look the entry up once, then decide. */
async function ask(ctx: CrawlContext): Promise<boolean> {
  return willRequest(ctx, await previousOf(ctx, 'site.example', 'ads.txt'), 'ads.txt');
}

describe('willRequest', () => {
  it('a first run (no earlier snapshot) always requests', async () => {
    expect(await ask({ incremental: null } as unknown as CrawlContext)).toBe(true);
  });

  it('by default every file is asked for, fresh or not (a snapshot says what the site served that day)', async () => {
    expect(await ask(ctxWith(earlier({}), false))).toBe(true);
    const absent = earlier({ status: 'not_found', httpStatus: 404, sha256: null, hasBody: false, url: null });
    expect(await ask(ctxWith(absent, false))).toBe(true);
  });

  it('with --reuse-fresh, no request for a still-fresh body or a still-fresh 404', async () => {
    expect(await ask(ctxWith(earlier({})))).toBe(false);
    const absent = earlier({ status: 'not_found', httpStatus: 404, sha256: null, hasBody: false, url: null });
    expect(await ask(ctxWith(absent))).toBe(false);
  });

  it('with --reuse-fresh, a request when the copy is stale, its body is gone, or the answer was a failure', async () => {
    const stale = new Date(NOW.getTime() - HOUR);
    expect(await ask(ctxWith(earlier({ freshUntil: stale })))).toBe(true);
    expect(await ask(ctxWith(earlier({ hasBody: false })))).toBe(true);
    expect(await ask(ctxWith(earlier({ status: 'not_found', sha256: null, hasBody: false, freshUntil: stale })))).toBe(true);
    expect(await ask(ctxWith(earlier({ status: 'http_error', httpStatus: 503, sha256: null, hasBody: false, freshUntil: null })))).toBe(true);
    expect(await ask(ctxWith(null))).toBe(true);
  });
});
