import { describe, expect, it } from 'vitest';
import { exemptions, simulatedBanner } from '../src/report/provenance.js';

/** Which nights the report says were not the public web, from the run manifest's `network` section. */
describe('report provenance (src/report/provenance.ts)', () => {
  const publicWeb = { dns_servers: 'system', allow_addresses: [], block_private_addresses: true, connect_to: [] };

  it('a crawl of the public web names no exemption; --connect-to, --allow-addresses and the guard turned off each do', () => {
    expect(exemptions(publicWeb)).toEqual([]);
    expect(exemptions(null)).toEqual([]);
    expect(exemptions({ ...publicWeb, connect_to: [':443:127.0.0.1:4000'], allow_addresses: ['127.0.0.0/8'], block_private_addresses: false })).toEqual([
      '--connect-to :443:127.0.0.1:4000',
      '--allow-addresses 127.0.0.0/8',
      "the private-address guard off",
    ]);
  });

  it('the banner names the nights when only some are affected, and is absent when none is', () => {
    expect(simulatedBanner([], 3)).toBeNull();
    const some = simulatedBanner([{ night: '2026-11-21', reasons: ['--allow-addresses 127.0.0.0/8'] }], 3)!;
    expect(some).toMatch(/^Not the public web\. 1 of 3 nights \(2026-11-21\) was crawled with the address guard's exemptions \(--allow-addresses 127\.0\.0\.0\/8\)/);
    const one = simulatedBanner([{ night: '2026-11-21', reasons: ['--connect-to a', '--connect-to b', '--connect-to c', '--connect-to d'] }], 1)!;
    expect(one).toContain('This night was crawled with the address guard\'s exemptions (--connect-to a, --connect-to b, --connect-to c and 1 more)');
  });
});
