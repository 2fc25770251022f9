// The resolve hook of load-recorder.mjs: one resolved URL per line into ADSNAP_LOAD_LOG.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.ADSNAP_LOAD_LOG) appendFileSync(process.env.ADSNAP_LOAD_LOG, `${resolved.url}\n`);
  return resolved;
}
