import { describe, expect, it } from 'vitest';
import { adsFileStatus, statusFromFetch } from '../src/resolve/file-status.js';
import { decideHops, type DeclaringFile } from '../src/resolve/referrals.js';

const file = (over: Partial<DeclaringFile>): DeclaringFile => ({
  subject: 'example.com',
  fileKind: 'ads.txt',
  role: 'root',
  root: 'example.com',
  subdomains: [],
  inventoryPartnerDomains: [],
  ...over,
});

describe('referral decisions', () => {
  it('ads.txt 1.1 §4.5/§5.5: a root file follows subdomain= inside its root only', () => {
    const hops = decideHops(
      file({
        subdomains: [
          { lineNo: 1, domain: 'divisionone.example.com' },
          { lineNo: 2, domain: 'other.org' },
          { lineNo: 3, domain: 'example.com' },
          { lineNo: 4, domain: 'notexample.com' },
        ],
      }),
    );
    expect(hops.map((h) => [h.toSubject, h.outcome, h.reason])).toEqual([
      ['divisionone.example.com', 'followed', null],
      ['other.org', 'ignored', 'outside_root'],
      ['example.com', 'ignored', 'same_as_root'],
      ['notexample.com', 'ignored', 'outside_root'],
    ]);
  });

  it('ads.txt 1.1 §4.5: a subdomain file does not refer to other subdomains', () => {
    const [h] = decideHops(file({ subject: 'a.example.com', role: 'subdomain', subdomains: [{ lineNo: 5, domain: 'b.example.com' }] }));
    expect(h).toMatchObject({ outcome: 'ignored', reason: 'not_root_file', lineNo: 5 });
  });

  it('app-ads.txt 1.0: SUBDOMAIN is ignored in app-ads.txt', () => {
    const [h] = decideHops(file({ fileKind: 'app-ads.txt', role: 'developer_url', subdomains: [{ lineNo: 1, domain: 'x.example.com' }] }));
    expect(h).toMatchObject({ outcome: 'ignored', reason: 'app_ads_txt' });
  });

  it('ads.txt 1.1 §4.6/§5.7: partners are followed one hop only', () => {
    const first = decideHops(file({ inventoryPartnerDomains: [{ lineNo: 2, domain: 'programmera.com' }] }));
    expect(first[0]).toMatchObject({ kind: 'inventorypartnerdomain', outcome: 'followed' });
    const second = decideHops(file({ subject: 'programmera.com', root: 'programmera.com', role: 'inventorypartnerdomain', inventoryPartnerDomains: [{ lineNo: 9, domain: 'programmerb.com' }] }));
    expect(second[0]).toMatchObject({ outcome: 'ignored', reason: 'second_hop' });
    const app = decideHops(file({ fileKind: 'app-ads.txt', role: 'developer_url', inventoryPartnerDomains: [{ lineNo: 1, domain: 'programmera.com' }] }));
    expect(app[0]).toMatchObject({ outcome: 'followed' });
  });
});

describe('file status', () => {
  it('ads.txt 1.1 §3.1: statuses of answers without a usable body', () => {
    expect(statusFromFetch(404, null)).toBe('not_found');
    expect(statusFromFetch(403, null)).toBe('unauthorized');
    expect(statusFromFetch(401, null)).toBe('unauthorized');
    expect(statusFromFetch(500, null)).toBe('http_error');
    expect(statusFromFetch(null, 'dns')).toBe('unreachable');
    expect(statusFromFetch(null, 'blocked_address')).toBe('unreachable');
    expect(statusFromFetch(301, 'redirect_scope')).toBe('redirect_error');
    expect(statusFromFetch(200, 'too_large')).toBe('too_large');
    expect(statusFromFetch(200, null)).toBeNull();
  });

  it('HTML beats Content-Type; a wrong Content-Type keeps records but is not valid', () => {
    const base = { truncated: false, records: 3, variables: 0 };
    expect(adsFileStatus({ ...base, parseStatus: 'html', contentType: 'text/html' })).toEqual({ status: 'html', valid: false });
    expect(adsFileStatus({ ...base, parseStatus: 'ok', contentType: 'application/octet-stream' })).toEqual({ status: 'invalid_content_type', valid: false });
    expect(adsFileStatus({ ...base, parseStatus: 'ok', contentType: 'text/plain; charset=utf-8' })).toEqual({ status: 'ok', valid: true });
    expect(adsFileStatus({ ...base, parseStatus: 'ok', contentType: 'Text/Plain' })).toEqual({ status: 'ok', valid: true });
    expect(adsFileStatus({ ...base, parseStatus: 'placeholder', contentType: 'text/plain' })).toEqual({ status: 'placeholder', valid: true });
    expect(adsFileStatus({ ...base, records: 0, parseStatus: 'empty', contentType: 'text/plain' })).toEqual({ status: 'empty', valid: false });
    expect(adsFileStatus({ ...base, truncated: true, parseStatus: 'ok', contentType: 'text/plain' })).toEqual({ status: 'too_large', valid: false });
  });
});
