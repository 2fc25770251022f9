import { describe, expect, it } from 'vitest';
import { absentFreshUntil, ageDays, carryForwardAllowed, carryForwardUntil, freshUntil, headerLifetimeMs, isFresh, parseCacheControl, parseHttpDate } from '../src/resolve/freshness.js';

const T = new Date('2026-11-22T10:00:00Z');
const H = 3600_000;
const D = 24 * H;
const after = (ms: number) => new Date(T.getTime() + ms);
const none = { cacheControl: null, expires: null };
const cc = (cacheControl: string) => ({ cacheControl, expires: null });
const ex = (expires: string) => ({ cacheControl: null, expires });

describe('freshUntil: ads.txt / app-ads.txt / sellers.json', () => {
  it.each(['ads.txt', 'app-ads.txt', 'sellers.json'] as const)('ads.txt 1.1 §3.6: %s without cache directives is fresh for 7 days', (kind) => {
    expect(freshUntil(kind, T, none)).toEqual(after(7 * D));
  });

  it('ads.txt 1.1 §3.6 / RFC 9111 §5.2.2.1: Cache-Control max-age sets the lifetime', () => {
    expect(freshUntil('ads.txt', T, cc('public, max-age=3600'))).toEqual(after(H));
    expect(freshUntil('ads.txt', T, cc('max-age=1209600'))).toEqual(after(14 * D));
  });

  it('RFC 9111 §4.2.1: max-age takes precedence over Expires', () => {
    expect(freshUntil('ads.txt', T, { cacheControl: 'max-age=60', expires: 'Sun, 29 Nov 2026 10:00:00 GMT' })).toEqual(after(60_000));
  });

  it('RFC 9111 §5.2.2.10: s-maxage is for shared caches and ignored', () => {
    expect(freshUntil('ads.txt', T, cc('s-maxage=60'))).toEqual(after(7 * D));
    expect(freshUntil('ads.txt', T, cc('s-maxage=60, max-age=120'))).toEqual(after(120_000));
  });

  it('ads.txt 1.1 §3.6: an Expires header sets the lifetime (HTTP-date, RFC 9110 §5.6.7)', () => {
    expect(freshUntil('ads.txt', T, ex('Tue, 24 Nov 2026 10:00:00 GMT'))).toEqual(after(2 * D));
  });

  it('RFC 9111 §4.2: an Expires in the past means fresh for 0', () => {
    expect(freshUntil('ads.txt', T, ex('Sat, 21 Nov 2026 10:00:00 GMT'))).toEqual(T);
  });

  it.each(['no-store', 'no-cache', 'max-age=0', 'private, no-cache, max-age=600', 'NO-STORE'])('RFC 9111 §5.2.2: "%s" means fresh for 0', (v) => {
    expect(freshUntil('ads.txt', T, cc(v))).toEqual(T);
  });

  it('RFC 9111 §5.2.2.4: no-cache qualified with field names does not restrict the body', () => {
    expect(freshUntil('ads.txt', T, cc('no-cache="Set-Cookie", max-age=60'))).toEqual(after(60_000));
  });

  it('RFC 9111 §5.2: quoted directive values are accepted', () => {
    expect(freshUntil('ads.txt', T, cc('max-age="120"'))).toEqual(after(120_000));
  });

  it('RFC 9111 §4.2.1: of repeated max-age directives the first is used', () => {
    expect(freshUntil('ads.txt', T, cc('max-age=60, max-age=999999'))).toEqual(after(60_000));
  });

  it('an invalid max-age is ignored: Expires, else the 7-day default (ads.txt 1.1 §3.6)', () => {
    expect(freshUntil('ads.txt', T, cc('max-age=abc'))).toEqual(after(7 * D));
    expect(freshUntil('ads.txt', T, cc('max-age=-5'))).toEqual(after(7 * D));
    expect(freshUntil('ads.txt', T, { cacheControl: 'max-age=1.5', expires: 'Mon, 23 Nov 2026 10:00:00 GMT' })).toEqual(after(D));
  });

  it('an invalid Expires is ignored (deviation from RFC 9111 §5.3, documented): the 7-day default applies', () => {
    for (const v of ['0', '-1', 'tomorrow', '2026-11-23', 'Mon, 31 Feb 2026 10:00:00 GMT', 'Mon, 23 Nov 2026 25:00:00 GMT']) {
      expect(freshUntil('ads.txt', T, ex(v))).toEqual(after(7 * D));
    }
  });

  it('RFC 9111 §1.2.2: a huge max-age saturates, and declared lifetimes are capped at one year', () => {
    expect(freshUntil('ads.txt', T, cc('max-age=99999999999999999999'))).toEqual(after(365 * D));
    expect(freshUntil('ads.txt', T, ex('Fri, 31 Dec 9999 23:59:59 GMT'))).toEqual(after(365 * D));
  });
});

describe('freshUntil: robots.txt and store pages', () => {
  it('RFC 9309 §2.4: robots.txt without headers is cached for 24 hours', () => {
    expect(freshUntil('robots.txt', T, none)).toEqual(after(D));
  });

  it('RFC 9309 §2.4: robots.txt cache control may shorten but never extend past 24 hours', () => {
    expect(freshUntil('robots.txt', T, cc('max-age=600'))).toEqual(after(600_000));
    expect(freshUntil('robots.txt', T, cc('max-age=604800'))).toEqual(after(D));
    expect(freshUntil('robots.txt', T, ex('Sun, 29 Nov 2026 10:00:00 GMT'))).toEqual(after(D));
    expect(freshUntil('robots.txt', T, cc('no-store'))).toEqual(T);
  });

  it('spec-decisions (store pages at most weekly): a store page is fresh for 7 days whatever its headers', () => {
    expect(freshUntil('store_page', T, none)).toEqual(after(7 * D));
    expect(freshUntil('store_page', T, cc('no-cache, no-store'))).toEqual(after(7 * D));
  });
});

describe('absentFreshUntil: a 404 (no file)', () => {
  const at = new Date('2026-11-22T00:00:00Z');
  const none = { cacheControl: null, expires: null };
  const days = (d: Date) => (d.getTime() - at.getTime()) / 86_400_000;
  it('lives as long as its headers say, but never past the default (7 days; robots.txt 24 h)', () => {
    expect(days(absentFreshUntil('ads.txt', at, none))).toBe(7);
    expect(days(absentFreshUntil('ads.txt', at, { cacheControl: 'max-age=31536000', expires: null }))).toBe(7);
    expect(days(absentFreshUntil('ads.txt', at, { cacheControl: 'max-age=86400', expires: null }))).toBe(1);
    expect(days(absentFreshUntil('ads.txt', at, { cacheControl: 'no-store', expires: null }))).toBe(0);
    expect(days(absentFreshUntil('robots.txt', at, { cacheControl: 'max-age=604800', expires: null }))).toBe(1);
  });
});

describe('HTTP header parsing', () => {
  it('RFC 9110 §5.6.7: IMF-fixdate, RFC 850 and asctime dates', () => {
    const ms = Date.UTC(1994, 10, 6, 8, 49, 37);
    const ref = T.getTime();
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', ref)).toBe(ms);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', ref)).toBe(ms);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', ref)).toBe(ms);
    expect(parseHttpDate('  sun, 06 nov 1994 08:49:37 gmt ', ref)).toBe(ms);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 PST', ref)).toBeNull();
  });

  it('RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is in the past century', () => {
    expect(new Date(parseHttpDate('Thursday, 01-Jan-70 00:00:00 GMT', T.getTime())!).getUTCFullYear()).toBe(2070);
    expect(new Date(parseHttpDate('Thursday, 01-Jan-99 00:00:00 GMT', T.getTime())!).getUTCFullYear()).toBe(1999);
  });

  it('RFC 9111 §5.2: Cache-Control directives, case-insensitive, quoted strings with commas', () => {
    const m = parseCacheControl('Public,MAX-AGE=60 , no-cache="set-cookie, x-a", community="UCI"');
    expect([...m]).toEqual([
      ['public', null],
      ['max-age', '60'],
      ['no-cache', 'set-cookie, x-a'],
      ['community', 'UCI'],
    ]);
    expect([...parseCacheControl(' , ,')]).toEqual([]);
    expect(parseCacheControl('x="a\\"b"').get('x')).toBe('a"b');
  });

  it('headerLifetimeMs is null when the headers declare nothing usable', () => {
    expect(headerLifetimeMs(none, T.getTime())).toBeNull();
    expect(headerLifetimeMs(cc('public, must-revalidate'), T.getTime())).toBeNull();
  });
});

describe('carryForward: ads.txt / app-ads.txt / sellers.json', () => {
  const fetched = new Date(T.getTime() - 3 * D);

  it.each(['http_error', 'unauthorized', 'unreachable', 'redirect_error', 'too_large'])('ads.txt 1.1 §3.1: after "%s" the last good data is used for 7 days', (status) => {
    const failure = { status, httpStatus: status === 'http_error' ? 503 : null };
    expect(carryForwardUntil('ads.txt', fetched, { failure })).toEqual(new Date(fetched.getTime() + 7 * D));
    expect(carryForwardAllowed('ads.txt', fetched, T, { failure })).toBe(true);
    expect(carryForwardAllowed('ads.txt', fetched, new Date(fetched.getTime() + 7 * D + 1), { failure })).toBe(false);
  });

  it('ads.txt 1.1 §3.1: a 404 means there is no file, so nothing is carried forward', () => {
    expect(carryForwardUntil('ads.txt', fetched, { failure: { status: 'not_found', httpStatus: 404 } })).toBeNull();
    expect(carryForwardAllowed('app-ads.txt', fetched, T, { failure: { status: 'not_found', httpStatus: 404 } })).toBe(false);
  });

  it.each(['ok', 'html', 'empty', 'invalid_content_type', 'disallowed_by_robots'])('ads.txt 1.1 §3.1: "%s" is an answer, not an error: nothing is carried forward', (status) => {
    expect(carryForwardAllowed('ads.txt', fetched, T, { failure: { status, httpStatus: 200 } })).toBe(false);
  });

  it('ads.txt 1.1 §3.6: a longer declared lifetime extends the window; a shorter one does not cut the 7 days', () => {
    const failure = { status: 'unreachable', httpStatus: null };
    const longer = new Date(fetched.getTime() + 30 * D);
    expect(carryForwardUntil('sellers.json', fetched, { failure, earlierFreshUntil: longer })).toEqual(longer);
    expect(carryForwardUntil('ads.txt', fetched, { failure, earlierFreshUntil: fetched })).toEqual(new Date(fetched.getTime() + 7 * D));
  });

  it('defaults to an unreachable failure when none is given', () => {
    expect(carryForwardAllowed('ads.txt', fetched, T)).toBe(true);
  });
});

describe('carryForward: robots.txt and store pages', () => {
  const fetched = new Date(T.getTime() - 10 * D);

  it.each([
    ['unreachable', null],
    ['http_error', 500],
    ['http_error', 503],
  ])('RFC 9309 §2.4 and §2.3.1.4: unreachable (%s %s) keeps the cached copy up to 30 days', (status, httpStatus) => {
    const failure = { status, httpStatus };
    expect(carryForwardUntil('robots.txt', fetched, { failure })).toEqual(new Date(fetched.getTime() + 30 * D));
    expect(carryForwardAllowed('robots.txt', fetched, T, { failure })).toBe(true);
    expect(carryForwardAllowed('robots.txt', fetched, new Date(fetched.getTime() + 31 * D), { failure })).toBe(false);
  });

  it.each([
    ['not_found', 404],
    ['unauthorized', 403],
    ['http_error', 429],
    ['redirect_error', null],
  ])('RFC 9309 §2.3.1.3: "%s" (%s) is unavailable, an answer: the cached copy is not used', (status, httpStatus) => {
    expect(carryForwardUntil('robots.txt', fetched, { failure: { status, httpStatus } })).toBeNull();
  });

  it('spec-decisions (store pages weekly): a failed store page reuses the earlier one for 7 days, not after a 404', () => {
    const f = new Date(T.getTime() - 2 * D);
    expect(carryForwardUntil('store_page', f, { failure: { status: 'unreachable', httpStatus: null } })).toEqual(new Date(f.getTime() + 7 * D));
    expect(carryForwardAllowed('store_page', new Date(T.getTime() - 8 * D), T)).toBe(false);
    expect(carryForwardUntil('store_page', f, { failure: { status: 'not_found', httpStatus: 404 } })).toBeNull();
  });
});

describe('isFresh and ageDays', () => {
  it('fresh strictly before fresh_until; null is never fresh', () => {
    expect(isFresh(after(1), T)).toBe(true);
    expect(isFresh(T, T)).toBe(false);
    expect(isFresh(null, T)).toBe(false);
  });

  it('age in days, never negative', () => {
    expect(ageDays(new Date(T.getTime() - 36 * H), T)).toBe(1.5);
    expect(ageDays(after(H), T)).toBe(0);
  });
});
