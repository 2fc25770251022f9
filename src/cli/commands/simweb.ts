import type { Command } from '../main.js';

// Placeholder until the owning issue lands; replaced by the real command.
export const command: Command = {
  summary: '(not built yet)',
  usage: 'adsnap simweb: not built yet',
  async run() {
    process.stderr.write('adsnap simweb: not built yet\n');
    return 1;
  },
};
