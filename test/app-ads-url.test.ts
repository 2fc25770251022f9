import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appAdsTxtHosts, appAdsTxtUrls, developerUrlHost } from '../src/resolve/developer-url.js';
import { corpusPath, describeWithCorpus, repoRoot } from './helpers/corpus.js';

/** app-ads.txt 1.0 Appendix A: developer URL → canonical domain (first host crawled). */
const appendixA: [string, string][] = [
  // Test handling of a typical .com domain
  ['https://www.example.com/test', 'example.com'],
  ['https://m.example.com/test', 'example.com'],
  ['https://example.com/test', 'example.com'],
  ['https://subdomain.example.com/test', 'subdomain.example.com'],
  ['https://another.subdomain.example.com/test', 'subdomain.example.com'],
  ['https://subdomain.www.example.com/test', 'example.com'],
  // Test handing of two-level public suffix
  ['https://www.example.co.uk/test', 'example.co.uk'],
  ['https://m.example.co.uk/test', 'example.co.uk'],
  ['https://example.co.uk/test', 'example.co.uk'],
  ['https://subdomain.example.co.uk/test', 'subdomain.example.co.uk'],
  ['https://another.subdomain.example.co.uk/test', 'subdomain.example.co.uk'],
  ['https://subdomain.www.example.co.uk/test', 'example.co.uk'],
  // Test handling of a newer country public suffix registerable namespace
  ['https://www.example.uk/test', 'example.uk'],
  ['https://m.example.uk/test', 'example.uk'],
  ['https://example.uk/test', 'example.uk'],
  ['https://subdomain.example.uk/test', 'subdomain.example.uk'],
  ['https://another.subdomain.example.uk/test', 'subdomain.example.uk'],
  ['https://subdomain.www.example.uk/test', 'example.uk'],
];

describe('app-ads.txt 1.0 Appendix A: developer URL canonicalization', () => {
  it.each(appendixA)('%s → %s', (url, expected) => {
    expect(appAdsTxtHosts(url)![0]).toEqual({ host: expected, via: 'developer_url' });
  });
});

describe('app-ads.txt 1.0 Appendix B: developer URL → app-ads.txt URLs', () => {
  it('baseline: https://example.com/test crawls example.com only', () => {
    expect(appAdsTxtUrls('https://example.com/test')).toEqual(['https://example.com/app-ads.txt', 'http://example.com/app-ads.txt']);
  });

  it('ignored www. and m.: never crawls www.example.com or m.example.com', () => {
    for (const url of ['https://www.example.com/test', 'https://m.example.com/test']) {
      const urls = appAdsTxtUrls(url);
      expect(urls).toEqual(['https://example.com/app-ads.txt', 'http://example.com/app-ads.txt']);
      expect(urls.join(' ')).not.toMatch(/(www|m)\.example\.com/);
    }
  });

  it('subdomain first, then the parent', () => {
    expect(appAdsTxtHosts('https://subdomain.example.com/test')).toEqual([
      { host: 'subdomain.example.com', via: 'developer_url' },
      { host: 'example.com', via: 'developer_url_parent' },
    ]);
  });

  it('multiple subdomains: only the first label before the registrable domain is used', () => {
    expect(appAdsTxtUrls('https://another.subdomain.example.com/test')).toEqual([
      'https://subdomain.example.com/app-ads.txt',
      'http://subdomain.example.com/app-ads.txt',
      'https://example.com/app-ads.txt',
      'http://example.com/app-ads.txt',
    ]);
  });

  it('subdomain on a multipart public suffix (contract §1 example)', () => {
    expect(appAdsTxtUrls('https://another.subdomain.example.co.uk/test')).toEqual([
      'https://subdomain.example.co.uk/app-ads.txt',
      'http://subdomain.example.co.uk/app-ads.txt',
      'https://example.co.uk/app-ads.txt',
      'http://example.co.uk/app-ads.txt',
    ]);
  });
});

describe('developer URL edge cases', () => {
  it('unusable URLs give null and no URLs', () => {
    for (const bad of ['', '   ', 'mailto:dev@example.com', 'ftp://example.com/', 'javascript:void(0)', 'https://127.0.0.1/x', 'http://[::1]/', 'https://localhost/', 'https://co.uk/', 'https://exa_mple.com/', 'not a url']) {
      expect(appAdsTxtHosts(bad), bad).toBeNull();
      expect(appAdsTxtUrls(bad), bad).toEqual([]);
    }
  });

  it('bare domains from bulk data are read as https URLs; ports, case, paths and queries are ignored', () => {
    expect(appAdsTxtHosts('WWW.Example.COM')).toEqual([{ host: 'example.com', via: 'developer_url' }]);
    expect(appAdsTxtHosts('games.example.com:8080/path')![0]!.host).toBe('games.example.com');
    expect(appAdsTxtHosts('//cdn.example.com/x')![0]!.host).toBe('cdn.example.com');
    expect(appAdsTxtHosts('HTTP://Studio.Example.com:81/a?b=c#d')![0]!.host).toBe('studio.example.com');
    expect(developerUrlHost('https://example.com./')).toBe('example.com');
  });

  it('IDN hosts become punycode', () => {
    expect(appAdsTxtHosts('https://spiele.münchen.de/')).toEqual([
      { host: 'spiele.xn--mnchen-3ya.de', via: 'developer_url' },
      { host: 'xn--mnchen-3ya.de', via: 'developer_url_parent' },
    ]);
  });

  it('private PSL suffixes: a github.io site is its own registrable domain', () => {
    expect(appAdsTxtHosts('https://studio.github.io/app')).toEqual([{ host: 'studio.github.io', via: 'developer_url' }]);
    expect(appAdsTxtHosts('https://www.studio.github.io/')).toEqual([{ host: 'studio.github.io', via: 'developer_url' }]);
  });

  it('a registrable domain that itself starts with m. or www. is kept', () => {
    expect(appAdsTxtHosts('https://m.com/')).toEqual([{ host: 'm.com', via: 'developer_url' }]);
  });
});

describe('adsnap app-ads-url (CLI)', () => {
  const bin = path.join(repoRoot, 'bin/adsnap.js');
  const run = (...args: string[]) => spawnSync(process.execPath, [bin, 'app-ads-url', ...args], { encoding: 'utf8' });

  it('prints the contract §1 example in crawl order', () => {
    const r = run('https://another.subdomain.example.co.uk/test');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      'https://subdomain.example.co.uk/app-ads.txt\nhttp://subdomain.example.co.uk/app-ads.txt\nhttps://example.co.uk/app-ads.txt\nhttp://example.co.uk/app-ads.txt\n',
    );
  });

  it('--hosts prints host and via', () => {
    const r = run('--hosts', 'https://www.example.com/test');
    expect(r.stdout).toBe('example.com\tdeveloper_url\n');
  });

  it('exit 1 for an unusable URL, 2 for usage errors', () => {
    expect(run('mailto:x@example.com').status).toBe(1);
    expect(run().status).toBe(2);
    expect(run('a.com', 'b.com').status).toBe(2);
    expect(run('--bogus', 'a.com').status).toBe(2);
  });
});

describeWithCorpus('real developer domains (corpus/lists/app-ads-txt-developer-domains.txt)', () => {
  it('every multi-label entry gives one or two hosts, never www./m., the parent last', () => {
    const lines = readFileSync(corpusPath('lists', 'app-ads-txt-developer-domains.txt'), 'utf8').split(/\r?\n/).filter(Boolean);
    expect(lines.length).toBeGreaterThan(30_000);
    for (const l of lines) {
      const hosts = appAdsTxtHosts(l);
      if (!l.includes('.')) {
        expect(hosts, l).toBeNull(); // single-label names ("omnifytv") are not hosts on the web
        continue;
      }
      expect(hosts, l).not.toBeNull();
      expect(hosts!.length).toBeLessThanOrEqual(2);
      expect(hosts![0]!.host).not.toMatch(/^(www|m)\./);
      if (hosts!.length === 2) expect(hosts![0]!.host.endsWith(`.${hosts![1]!.host}`)).toBe(true);
    }
  });
});
