/**
 * What the CLI prints of an error that ends a command: one line, its message, for every error
 * the commands expect (they carry a stable `code`: a lock held, a provider unreachable, a root
 * that is no snapshot). The stack trace is for whoever debugs adsnap, not for the user: it is
 * printed only with `--debug` (any command, anywhere before a lone `--`) or `ADSNAP_DEBUG=1`
 * (docs/reference/cli.md#exit-status). A fault adsnap did not foresee (a TypeError…) says how to
 * get the trace.
 */

/** The environment variable that turns on `--debug` for every command. */
export const DEBUG_ENV = 'ADSNAP_DEBUG';

let debug = false;

/**
 * Takes `--debug` out of a command's arguments (every command accepts it, none parses it) and
 * turns on the stack traces when it or ADSNAP_DEBUG=1 is given. Read once, at the CLI's entry.
 */
export function takeDebugFlag(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const end = argv.indexOf('--');
  const options = end < 0 ? argv : argv.slice(0, end);
  const rest = options.filter((a) => a !== '--debug');
  debug = rest.length < options.length || env[DEBUG_ENV] === '1';
  return end < 0 ? rest : [...rest, ...argv.slice(end)];
}

/** The text to print of an error (made visible by the caller, text/visible.ts). */
/** Whether `--debug` or ADSNAP_DEBUG=1 was given (a child process of the command is given it too). */
export function debugging(): boolean {
  return debug;
}

export function failureText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (debug) return traceOf(err);
  return unforeseen(err) ? `${message} (--debug or ${DEBUG_ENV}=1 prints where it happened)` : message;
}

/** A fault in the code rather than a condition met (JavaScript's own error kinds, with no code). */
function unforeseen(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code !== 'string' && err instanceof Error && ['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError'].includes(err.constructor.name);
}

/** The stack, and each cause's, for --debug. */
function traceOf(err: unknown): string {
  const lines: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    lines.push(`${depth > 0 ? 'caused by: ' : ''}${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
  return lines.join('\n');
}
