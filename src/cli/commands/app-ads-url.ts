import { parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { appAdsTxtHosts, appAdsTxtUrls } from '../../resolve/developer-url.js';

const usage = `Usage: adsnap app-ads-url [--hosts] DEVELOPER_URL

Prints, one per line and in crawl order, the app-ads.txt URLs that the app-ads.txt 1.0 spec
(Appendix A and B) derives from a developer website URL: the subdomain (at most one label in
front of the registrable domain, without www. or m.) first, then the registrable domain,
HTTPS before HTTP for each host. A bare domain (no scheme) is read as https://DOMAIN.

Options:
  --hosts   print "HOST<TAB>VIA" per host instead (VIA is developer_url or developer_url_parent)

Exit status: 0 when URLs were printed, 1 when no app-ads.txt location can be derived
(empty, not http(s), an IP address, a bare public suffix), 2 on usage errors.`;

export const command: Command = {
  summary: 'print the app-ads.txt URLs derived from a developer website URL',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { hosts: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one DEVELOPER_URL');
    const developerUrl = positionals[0]!;
    const hosts = appAdsTxtHosts(developerUrl);
    if (hosts === null) {
      process.stderr.write(`adsnap app-ads-url: no app-ads.txt location can be derived from ${JSON.stringify(developerUrl)}\n`);
      return 1;
    }
    const lines = values.hosts ? hosts.map((h) => `${h.host}\t${h.via}`) : appAdsTxtUrls(developerUrl);
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
};
