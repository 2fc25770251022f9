/**
 * A step's time and the process's RSS after it, on stderr, when the environment variable `flag`
 * is set (ADSNAP_REPORT_TIMING for the report's figures, ADSNAP_DERIVE_TIMING for a derivation's
 * tables): how docs/performance.md's per-step tables are measured.
 */
export function stepTiming(flag: string): (step: string, t0: number) => void {
  return (step, t0) => {
    if (!process.env[flag]) return;
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    process.stderr.write(`${step}: ${Math.round(performance.now() - t0)} ms, RSS ${mb(process.memoryUsage.rss())} MB (peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MB)\n`);
  };
}
